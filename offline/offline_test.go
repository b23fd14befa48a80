package offline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/amem-dev/amem"
)

var may8 = time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)

func newTestCurator(t testing.TB) (*Curator, *hashEmbedder) {
	t.Helper()
	emb := &hashEmbedder{}
	return New(emb, nil), emb
}

func construct(t testing.TB, c *Curator, n amem.Note) amem.Attributes {
	t.Helper()
	a, err := c.Construct(context.Background(), n)
	if err != nil {
		t.Fatalf("Construct(%q): %v", n.Content, err)
	}
	return a
}

func hasFold(xs []string, want string) bool {
	return slices.ContainsFunc(xs, func(x string) bool { return strings.EqualFold(x, want) })
}

func TestConstructKeywords(t *testing.T) {
	tests := []struct {
		name    string
		note    amem.Note
		want    []string // must be among the keywords
		wantNot []string // must not be
		first   []string // the keywords must start with these
	}{
		{
			name: "names and dates kept",
			note: amem.Note{Content: "Caroline: I met Jolene at the LGBTQ support group on 8 May 2023 in Boston."},
			want: []string{"Jolene", "8 May 2023", "Boston"},
		},
		{
			name:    "relative date resolved against the event time",
			note:    amem.Note{Content: "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.", EventTime: may8},
			want:    []string{"7 May 2023"},
			wantNot: []string{"yesterday", "powerful"},
		},
		{
			name: "month day year and ISO dates",
			note: amem.Note{Content: "The contract was signed on May 3, 2021 and renewed on 2022-06-30."},
			want: []string{"3 May 2021", "30 June 2022"},
		},
		{
			name:    "stopwords dropped",
			note:    amem.Note{Content: "Well, I was really just thinking that it would be so nice to do something about the garden."},
			want:    []string{"garden"},
			wantNot: []string{"well", "really", "thinking", "something", "nice"},
		},
		{
			name:  "caller keywords first",
			note:  amem.Note{Content: "Melanie: We went camping at the lake with the kids last summer.", Keywords: []string{"trip", "Camping"}},
			first: []string{"trip", "Camping"},
			want:  []string{"lake"},
		},
		{
			name:    "addressee is not a keyword",
			note:    amem.Note{Content: "Caroline: Thanks, Melanie! Your pottery class sounds lovely."},
			want:    []string{"pottery class"},
			wantNot: []string{"Melanie"},
		},
		{
			name: "acronym at sentence start",
			note: amem.Note{Content: "NASA launched a new telescope into orbit."},
			want: []string{"NASA"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestCurator(t)
			a := construct(t, c, tt.note)
			for _, w := range tt.want {
				if !hasFold(a.Keywords, w) {
					t.Errorf("keywords %q lack %q", a.Keywords, w)
				}
			}
			for _, w := range tt.wantNot {
				if hasFold(a.Keywords, w) {
					t.Errorf("keywords %q contain %q", a.Keywords, w)
				}
			}
			if len(tt.first) > 0 && !slices.Equal(a.Keywords[:min(len(a.Keywords), len(tt.first))], tt.first) {
				t.Errorf("keywords %q don't start with %q", a.Keywords, tt.first)
			}
			for _, k := range a.Keywords {
				if slices.Contains(tt.note.Keywords, k) {
					continue
				}
				words := strings.Fields(strings.ToLower(k))
				if isFunctionWord(words[0]) || isFunctionWord(words[len(words)-1]) {
					t.Errorf("keyword %q starts or ends with a stopword", k)
				}
			}
			if n := len(a.Keywords) - len(tt.note.Keywords); n > c.opt.MaxKeywords {
				t.Errorf("%d keywords, want at most %d", n, c.opt.MaxKeywords)
			}
			if a.Usage != (amem.Usage{}) {
				t.Errorf("usage %+v, want zero", a.Usage)
			}
		})
	}
}

func TestConstructTags(t *testing.T) {
	c, _ := newTestCurator(t)
	for _, tc := range []struct {
		content string
		want    string // a tag it must get; "" for none at all
	}{
		{"I adopted a puppy and took it to the vet.", "pets"},
		{"hmm", ""},
		{"Caroline: The support group has made me feel accepted.", "-"},
	} {
		a := construct(t, c, amem.Note{Content: tc.content})
		if len(a.Tags) > c.opt.MaxTags {
			t.Errorf("%q: tags %q, want at most %d", tc.content, a.Tags, c.opt.MaxTags)
		}
		switch tc.want {
		case "":
			if len(a.Tags) > 0 {
				t.Errorf("%q: tags %q, want none: nothing in it is a topic", tc.content, a.Tags)
			}
		case "-":
		default:
			if !slices.Contains(a.Tags, tc.want) {
				t.Errorf("%q: tags %q, want %q", tc.content, a.Tags, tc.want)
			}
		}
		for _, tag := range a.Tags {
			if !inTaxonomy(tag) {
				t.Errorf("%q: tag %q is not in the taxonomy", tc.content, tag)
			}
		}
	}
	a := construct(t, c, amem.Note{Content: "Went to the vet with my dog.", Tags: []string{"Personal", "pets"}})
	if !slices.Equal(a.Tags[:2], []string{"Personal", "pets"}) || len(a.Tags) > 2+c.opt.MaxTags {
		t.Errorf("tags %q: want caller's first and at most %d more", a.Tags, c.opt.MaxTags)
	}
	if strings.Count(strings.ToLower(strings.Join(a.Tags, " ")), "pets") != 1 {
		t.Errorf("tags %q repeat a caller tag", a.Tags)
	}
}

func TestConstructContext(t *testing.T) {
	tests := []struct {
		note amem.Note
		want []string
	}{
		{amem.Note{Content: "Caroline: I went to a LGBTQ support group yesterday.", EventTime: may8},
			[]string{"Caroline", "8 May 2023", "LGBTQ support group", "7 May 2023"}},
		{amem.Note{Content: "Melanie: Hey Caroline! Good to see you!"}, []string{"Melanie", "to Caroline"}},
		{amem.Note{Content: "The quarterly budget review moved to Friday.", EventTime: may8},
			[]string{"budget review", "8 May 2023"}},
		{amem.Note{Content: "ok"}, []string{"ok"}},
	}
	for _, tt := range tests {
		c, _ := newTestCurator(t)
		a := construct(t, c, tt.note)
		for _, w := range tt.want {
			if !strings.Contains(a.Context, w) {
				t.Errorf("context %q lacks %q", a.Context, w)
			}
		}
		if !strings.HasSuffix(a.Context, ".") || strings.Count(a.Context, ". ") > 0 || strings.Contains(a.Context, "\n") {
			t.Errorf("context %q is not one sentence", a.Context)
		}
		if n := utf8.RuneCountInString(a.Context); n > c.opt.MaxContextRunes {
			t.Errorf("context has %d runes, over %d", n, c.opt.MaxContextRunes)
		}
	}
	c, _ := newTestCurator(t)
	long := "Caroline: " + strings.Repeat("The museum exhibition about ancient pottery techniques impressed everyone. ", 40)
	if a := construct(t, c, amem.Note{Content: long}); utf8.RuneCountInString(a.Context) > c.opt.MaxContextRunes {
		t.Errorf("context of a long note has %d runes", utf8.RuneCountInString(a.Context))
	}
}

func TestConstructEmbedding(t *testing.T) {
	c, emb := newTestCurator(t)
	ctx := context.Background()
	construct(t, c, amem.Note{Content: "warm up the prototypes"})
	before := emb.calls.Load()
	construct(t, c, amem.Note{Content: "A quiet walk along the river.", Embedding: hashVec("A quiet walk along the river.")})
	if got := emb.calls.Load() - before; got != 1 {
		t.Errorf("Construct with an embedding made %d embedder calls, want 1", got)
	}
	before = emb.calls.Load()
	construct(t, c, amem.Note{Content: "A quiet walk along the river."})
	if got := emb.calls.Load() - before; got != 1 {
		t.Errorf("Construct without an embedding made %d embedder calls, want 1 (content batched with phrases)", got)
	}
	if a := construct(t, c, amem.Note{Content: "  ", Keywords: []string{"x"}}); !slices.Equal(a.Keywords, []string{"x"}) {
		t.Errorf("empty content: keywords %q, want the caller's", a.Keywords)
	}

	bad := New(&hashEmbedder{fail: errDown}, nil)
	if _, err := bad.Construct(ctx, amem.Note{Content: "anything at all"}); !errors.Is(err, errDown) {
		t.Errorf("embedder failure: err = %v, want %v", err, errDown)
	}
	short := New(&hashEmbedder{short: true}, nil)
	if _, err := short.Construct(ctx, amem.Note{Content: "anything at all"}); err == nil {
		t.Error("embedder returning too few vectors: no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Construct(cancelled, amem.Note{Content: "anything"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}

// conversation is a short chat used by several tests.
var conversation = []string{
	"Caroline: Hey Mel! Good to see you! How have you been?",
	"Melanie: Hey Caroline! I'm swamped with the kids & work. What's up with you?",
	"Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
	"Melanie: That's cool, Caroline! Did you hear any inspiring stories at the support group?",
	"Caroline: The transgender stories were so inspiring! I was so thankful for all the support.",
	"Melanie: I painted that lake sunrise last year! Painting is special to me.",
	"Caroline: The colors of the lake painting blend nicely. Painting is a great outlet.",
	"Melanie: I'm off to go swimming with the kids. Talk to you soon!",
	"Caroline: I'm researching adoption agencies because I want to adopt kids.",
	"Melanie: Adoption is a big step, Caroline. The adoption agencies will help you.",
}

// run feeds the conversation through Construct and Connect as Memory would,
// with the ten nearest earlier notes as candidates, and returns every output.
func run(t testing.TB, c *Curator) ([]amem.Attributes, []amem.Decision) {
	t.Helper()
	ctx := context.Background()
	var stored []amem.Note
	var attrs []amem.Attributes
	var decs []amem.Decision
	for i, content := range conversation {
		n := amem.Note{ID: fmt.Sprintf("N%02d", i), Namespace: "chat", Content: content, EventTime: may8.Add(time.Duration(i) * time.Minute)}
		a, err := c.Construct(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		attrs = append(attrs, a)
		n.Keywords, n.Tags, n.Context = a.Keywords, a.Tags, a.Context
		n.Embedding = hashVec(n.Content + " " + strings.Join(n.Keywords, " "))
		var cands []amem.Candidate
		for _, o := range stored {
			cands = append(cands, amem.Candidate{Note: o, Similarity: cosine(n.Embedding, o.Embedding)})
		}
		slices.SortStableFunc(cands, func(a, b amem.Candidate) int {
			switch {
			case a.Similarity > b.Similarity:
				return -1
			case a.Similarity < b.Similarity:
				return 1
			}
			return 0
		})
		cands = cands[:min(len(cands), 10)]
		d, err := c.Connect(ctx, n, cands)
		if err != nil {
			t.Fatal(err)
		}
		decs = append(decs, d)
		for _, e := range d.Evolve {
			k := slices.IndexFunc(stored, func(o amem.Note) bool { return o.ID == e.Target })
			if e.Keywords != nil {
				stored[k].Keywords = e.Keywords
			}
			if e.Tags != nil {
				stored[k].Tags = e.Tags
			}
			if e.Context != nil {
				stored[k].Context = *e.Context
			}
		}
		stored = append(stored, n)
	}
	return attrs, decs
}

func TestDeterminism(t *testing.T) {
	a1, d1 := run(t, New(&hashEmbedder{}, nil))
	a2, d2 := run(t, New(&hashEmbedder{}, nil))
	if !reflect.DeepEqual(a1, a2) {
		t.Errorf("Construct differs between runs:\n%+v\n%+v", a1, a2)
	}
	if !reflect.DeepEqual(d1, d2) {
		t.Errorf("Connect differs between runs:\n%+v\n%+v", d1, d2)
	}
}

func candidate(id, content string, sim float64, kws ...string) amem.Candidate {
	return amem.Candidate{Note: amem.Note{ID: id, Namespace: "chat", Content: content, Keywords: kws}, Similarity: sim}
}

func linkTo(d amem.Decision, id string) (amem.LinkDecision, bool) {
	for _, l := range d.Links {
		if l.Target == id {
			return l, true
		}
	}
	return amem.LinkDecision{}, false
}

func TestConnectThresholds(t *testing.T) {
	c, _ := newTestCurator(t)
	ctx := context.Background()
	note := amem.Note{ID: "new", Namespace: "chat", Content: "Caroline: I'm researching adoption agencies.",
		Keywords: []string{"adoption agencies", "Jolene"}}
	d, err := c.Connect(ctx, note, []amem.Candidate{
		candidate("dup", "Caroline: I am researching adoption agencies.", 0.97, "adoption agencies"),
		candidate("far", "Melanie: The weather is cold today.", 0.12, "weather"),
		candidate("mid", "Caroline: I might look into fostering.", 0.66, "fostering"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := linkTo(d, "dup"); !ok {
		t.Errorf("near-duplicate not linked: %+v", d.Links)
	}
	if _, ok := linkTo(d, "far"); ok {
		t.Errorf("unrelated candidate linked: %+v", d.Links)
	}
	for _, l := range d.Links {
		if l.Strength < 0 || l.Strength > 1 || l.Reason == "" {
			t.Errorf("link %+v: strength out of [0,1] or no reason", l)
		}
	}
	if d.Usage != (amem.Usage{}) {
		t.Errorf("usage %+v, want zero", d.Usage)
	}

	// Two candidates equally close: the one that names the same person wins.
	d, err = c.Connect(ctx, note, []amem.Candidate{
		candidate("plain", "Caroline: My friend gave me advice on paperwork.", 0.6, "advice"),
		candidate("named", "Caroline: My friend Jolene gave me advice on paperwork.", 0.6, "advice", "Jolene"),
	})
	if err != nil {
		t.Fatal(err)
	}
	named, ok1 := linkTo(d, "named")
	plain, ok2 := linkTo(d, "plain")
	if !ok1 || (ok2 && named.Strength <= plain.Strength) {
		t.Errorf("shared name does not boost: named %+v (%v), plain %+v (%v)", named, ok1, plain, ok2)
	}
	if !strings.Contains(named.Reason, "Jolene") {
		t.Errorf("reason %q doesn't name the shared keyword", named.Reason)
	}
	if len(d.Links) > 0 && d.Links[0].Target != "named" {
		t.Errorf("links not strongest first: %+v", d.Links)
	}
}

func TestConnectMaxLinks(t *testing.T) {
	c := New(&hashEmbedder{}, &Options{MaxLinks: 2})
	note := amem.Note{ID: "new", Content: "Caroline: adoption agencies", Keywords: []string{"adoption"}}
	var cands []amem.Candidate
	for i := range 6 {
		cands = append(cands, candidate(fmt.Sprint("c", i), "Caroline: adoption agencies again", 0.9-float64(i)/100, "adoption"))
	}
	d, err := c.Connect(context.Background(), note, cands)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 2 || d.Links[0].Target != "c0" || d.Links[1].Target != "c1" {
		t.Errorf("links %+v, want the two strongest", d.Links)
	}
}

func TestConnectOnlyNamesCandidates(t *testing.T) {
	c, _ := newTestCurator(t)
	note := amem.Note{ID: "self", Namespace: "chat", Content: "Melanie: pottery class with the kids",
		Keywords: []string{"pottery class", "kids"}, Tags: []string{"art"}, Embedding: hashVec("pottery class kids")}
	for trial := range 20 {
		var cands []amem.Candidate
		allowed := map[string]bool{}
		for i := range trial%7 + 1 {
			id := fmt.Sprintf("n%d", (i*7+trial)%5) // duplicates on purpose
			if i == 3 {
				id = "self"
			}
			if i == 4 {
				id = ""
			}
			content := []string{"pottery class was fun", "kids love pottery", "the car broke down", "pottery class kids", "a new job"}[(i+trial)%5]
			cd := candidate(id, content, cosine(note.Embedding, hashVec(content)), strings.Fields(content)[0])
			cd.Note.Embedding = hashVec(content)
			cands = append(cands, cd)
			if id != "" && id != "self" {
				allowed[id] = true
			}
		}
		d, err := c.Connect(context.Background(), note, cands)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, l := range d.Links {
			if !allowed[l.Target] || seen[l.Target] {
				t.Errorf("trial %d: link to %q not among candidates or repeated", trial, l.Target)
			}
			seen[l.Target] = true
		}
		for _, e := range d.Evolve {
			if !allowed[e.Target] || !seen[e.Target] {
				t.Errorf("trial %d: evolution of %q, not a linked candidate", trial, e.Target)
			}
		}
	}
}

func TestEvolutionBounds(t *testing.T) {
	c, _ := newTestCurator(t)
	ctx := context.Background()
	own := []string{"pottery", "kids", "summer camp", "clay", "Melanie"}
	nb := amem.Note{
		ID: "nb", Namespace: "chat",
		Content:   "Melanie: I signed the kids up for a pottery summer camp with clay and glazes.",
		Keywords:  slices.Clone(own),
		Tags:      []string{"art", "family"},
		Context:   "On 8 May 2023, Melanie talks about pottery, kids and summer camp (art).",
		Embedding: hashVec("pottery kids summer camp clay glazes"),
	}
	origClause := "On 8 May 2023, Melanie talks about pottery, kids and summer camp (art)"
	changes := 0
	for i := range 50 {
		topic := fmt.Sprintf("topic%d", i)
		note := amem.Note{
			ID: fmt.Sprintf("new%02d", i), Namespace: "chat",
			Content:   fmt.Sprintf("Caroline: the kids loved pottery and %s at summer camp with glazes", topic),
			Keywords:  []string{topic, "glazes", fmt.Sprintf("thing%d", i), "pottery"},
			Tags:      []string{"art", "family", "hobbies", "nature", "sports", "travel"}[i%6 : i%6+1],
			EventTime: may8.AddDate(0, 0, i),
			Embedding: hashVec("pottery kids summer camp clay glazes " + topic),
		}
		cd := amem.Candidate{Note: nb.Clone(), Similarity: 0.9}
		d, err := c.Connect(ctx, note, []amem.Candidate{cd})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := linkTo(d, "nb"); !ok {
			t.Fatalf("round %d: neighbour not linked: %+v", i, d.Links)
		}
		for _, e := range d.Evolve {
			changes++
			if e.Keywords != nil {
				if slices.Equal(e.Keywords, nb.Keywords) {
					t.Errorf("round %d: keywords returned unchanged", i)
				}
				nb.Keywords = e.Keywords
			}
			if e.Tags != nil {
				if slices.Equal(e.Tags, nb.Tags) {
					t.Errorf("round %d: tags returned unchanged", i)
				}
				nb.Tags = e.Tags
			}
			if e.Context != nil {
				if *e.Context == nb.Context {
					t.Errorf("round %d: context returned unchanged", i)
				}
				nb.Context = *e.Context
			}
		}
		if len(nb.Keywords) > c.opt.MaxNoteKeywords {
			t.Fatalf("round %d: %d keywords, cap %d", i, len(nb.Keywords), c.opt.MaxNoteKeywords)
		}
		if !slices.Equal(nb.Keywords[:len(own)], own) {
			t.Fatalf("round %d: own keywords disturbed: %q", i, nb.Keywords)
		}
		if len(nb.Tags) > c.opt.MaxNoteTags || !slices.Equal(nb.Tags[:2], []string{"art", "family"}) {
			t.Fatalf("round %d: tags %q", i, nb.Tags)
		}
		if n := utf8.RuneCountInString(nb.Context); n > c.opt.MaxContextRunes {
			t.Fatalf("round %d: context grew to %d runes: %q", i, n, nb.Context)
		}
		if !strings.HasPrefix(nb.Context, origClause) {
			t.Fatalf("round %d: context lost its own clause: %q", i, nb.Context)
		}
	}
	if changes == 0 {
		t.Fatal("the neighbour never evolved")
	}
	if !hasFold(nb.Keywords, "glazes") {
		t.Errorf("keyword found in the neighbour's own text not added: %q", nb.Keywords)
	}
	if strings.Count(nb.Context, strings.TrimSpace(relationMarker)) != 1 {
		t.Errorf("context keeps more than the latest relation: %q", nb.Context)
	}
}

func TestEvolveOnlyWhenChanged(t *testing.T) {
	c, _ := newTestCurator(t)
	note := amem.Note{ID: "new", Namespace: "chat", Content: "Caroline: pottery class",
		Keywords: []string{"pottery class"}, EventTime: may8}
	nb := amem.Note{ID: "nb", Content: "Melanie: my pottery class", Keywords: []string{"pottery class"},
		Context: "Melanie talks about pottery class; related to pottery class (8 May 2023)."}
	d, err := c.Connect(context.Background(), note, []amem.Candidate{{Note: nb, Similarity: 0.95}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 1 {
		t.Fatalf("links %+v, want one", d.Links)
	}
	if len(d.Evolve) != 0 {
		t.Errorf("evolution %+v changes nothing", d.Evolve)
	}
}

// prototypeText is a taxonomy tag's prototype sentences in one text, which
// the hash embedder places confidently in that tag.
func prototypeText(tag string) string {
	return strings.Join(taxonomy[slices.IndexFunc(taxonomy, func(x category) bool { return x.tag == tag })].prototype, " ")
}

// TestEvolveTagNeedsConfidence: a neighbour takes a tag from the note that
// links to it only when the curator is confident of the tag for the
// neighbour itself; the link alone is no evidence of a topic.
func TestEvolveTagNeedsConfidence(t *testing.T) {
	c, _ := newTestCurator(t)
	note := amem.Note{ID: "new", Namespace: "chat", Content: "Caroline: pottery class",
		Keywords: []string{"pottery class"}, Tags: []string{"art"}}
	for _, tc := range []struct {
		name string
		vec  []float32
		want bool
	}{
		{"confident", hashVec(prototypeText("art")), true},
		{"not confident", hashVec("zzz qqq xxx"), false},
	} {
		cd := candidate("nb", "Melanie: my pottery class", 0.9, "pottery class")
		cd.Note.Embedding = tc.vec
		d, err := c.Connect(context.Background(), note, []amem.Candidate{cd})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(d.Evolve, func(e amem.Evolution) bool { return slices.Contains(e.Tags, "art") })
		if got != tc.want {
			t.Errorf("%s: neighbour takes 'art': %v, want %v (%+v)", tc.name, got, tc.want, d.Evolve)
		}
	}
}

func TestStrengthen(t *testing.T) {
	c, _ := newTestCurator(t)
	art := prototypeText("art")
	for _, tc := range []struct {
		name string
		vec  []float32
		want []string // nil: no change
	}{
		{"confident of art", hashVec(art), []string{"hobbies", "art"}},
		{"not confident of art", hashVec("zzz qqq xxx"), nil},
		{"no embedding", nil, nil},
	} {
		note := amem.Note{ID: "new", Content: "Caroline: pottery class", Keywords: []string{"pottery class"},
			Tags: []string{"hobbies"}, Embedding: tc.vec}
		var cands []amem.Candidate
		for i := range 3 {
			cd := candidate(fmt.Sprint("c", i), "Melanie: pottery class again", 0.9, "pottery class")
			cd.Note.Tags = []string{"art", "hobbies"}
			cands = append(cands, cd)
		}
		d, err := c.Connect(context.Background(), note, cands)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == nil && d.Note != nil:
			t.Errorf("%s: strengthen %+v: the neighbours' agreement is not confidence", tc.name, d.Note)
		case tc.want != nil && (d.Note == nil || !slices.Equal(d.Note.Tags, tc.want)):
			t.Errorf("%s: strengthen %+v, want tags %q", tc.name, d.Note, tc.want)
		}
	}
}

func TestConcurrentConstruct(t *testing.T) {
	c, _ := newTestCurator(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, content := range conversation {
				ns := fmt.Sprint("ns", (g+i)%3)
				n := amem.Note{Namespace: ns, Content: content, EventTime: may8}
				if _, err := c.Construct(context.Background(), n); err != nil {
					t.Error(err)
					return
				}
				if _, err := c.Connect(context.Background(), n, []amem.Candidate{candidate("x", conversation[0], 0.7, "Mel")}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// otherModel returns vectors of another length than the notes carry.
type otherModel struct{ hashEmbedder }

func (o *otherModel) Dimensions() int { return 0 } // unknown, as some remote models report

func TestConstructForeignEmbedding(t *testing.T) {
	c := New(&otherModel{}, nil)
	n := amem.Note{Content: "Melanie: the pottery class with clay and glazes", Embedding: make([]float32, 512)}
	n.Embedding[3] = 1
	a := construct(t, c, n)
	if !hasFold(a.Keywords, "pottery class") && !hasFold(a.Keywords, "glazes") {
		t.Errorf("keywords %q: a note embedding of another size should be replaced, not scored against", a.Keywords)
	}
}

func TestObserveWarmsStatistics(t *testing.T) {
	c, emb := newTestCurator(t)
	for range 20 {
		c.Observe(amem.Note{Namespace: "chat", Content: "Caroline: the kids and the kids again"})
	}
	if emb.calls.Load() != 0 {
		t.Error("Observe called the embedder")
	}
	c.stats.mu.Lock()
	s := c.stats.byNS["chat"]
	c.stats.mu.Unlock()
	if s == nil || s.docs != 20 || s.df["kids"] != 20 || s.names["caroline"]&speakerName == 0 {
		t.Fatalf("statistics after Observe: %+v", s)
	}
	// A sentence-start name is known now, so it is kept as a name.
	a := construct(t, c, amem.Note{Namespace: "chat", Content: "Caroline went hiking in the hills."})
	if !slices.Contains(a.Keywords, "Caroline") {
		t.Errorf("keywords %q lack the known name", a.Keywords)
	}
}

func TestStatsBounded(t *testing.T) {
	c := New(&hashEmbedder{}, &Options{MaxNamespaces: 3, MaxTerms: 10})
	for i := range 10 {
		construct(t, c, amem.Note{Namespace: fmt.Sprint("ns", i), Content: "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"})
	}
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	if len(c.stats.byNS) != 3 {
		t.Errorf("%d namespaces kept, cap 3", len(c.stats.byNS))
	}
	for ns, s := range c.stats.byNS {
		if len(s.df) > 10 {
			t.Errorf("%s: %d terms kept, cap 10", ns, len(s.df))
		}
	}
	if _, ok := c.stats.byNS["ns9"]; !ok {
		t.Error("the most recent namespace was evicted")
	}
}

func BenchmarkConstruct(b *testing.B) {
	c, _ := newTestCurator(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		n := amem.Note{Namespace: "bench", Content: conversation[i%len(conversation)], EventTime: may8}
		if _, err := c.Construct(ctx, n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConnect(b *testing.B) {
	c, _ := newTestCurator(b)
	ctx := context.Background()
	note := amem.Note{ID: "new", Namespace: "bench", Content: conversation[9], EventTime: may8,
		Keywords: []string{"adoption", "adoption agencies", "Caroline"}, Tags: []string{"family"}, Embedding: hashVec(conversation[9])}
	var cands []amem.Candidate
	for i, content := range conversation {
		n := amem.Note{ID: fmt.Sprint("c", i), Namespace: "bench", Content: content, EventTime: may8,
			Keywords: strings.Fields(content)[1:3], Tags: []string{"family"}, Context: "Someone talks about something (family).",
			Embedding: hashVec(content)}
		cands = append(cands, amem.Candidate{Note: n, Similarity: cosine(note.Embedding, n.Embedding)})
	}
	if _, err := c.Connect(ctx, note, cands); err != nil { // embed the prototypes outside the loop
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Connect(ctx, note, cands); err != nil {
			b.Fatal(err)
		}
	}
}

// Debug logs (amem serve -v) carry counts and IDs, never the note's own
// words.
func TestDebugLogHoldsNoNoteText(t *testing.T) {
	var buf bytes.Buffer
	c := New(&hashEmbedder{}, &Options{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	a := construct(t, c, amem.Note{ID: "N1", Namespace: "ns", Content: "Zanzibar quokka appointment with Dr. Okafor"})
	if len(a.Keywords) == 0 || buf.Len() == 0 {
		t.Fatalf("keywords %v, log %q: the test needs both", a.Keywords, buf.String())
	}
	for _, w := range []string{"Zanzibar", "quokka", "Okafor"} {
		if strings.Contains(strings.ToLower(buf.String()), strings.ToLower(w)) {
			t.Errorf("the debug log holds %q: %s", w, buf.String())
		}
	}
}
