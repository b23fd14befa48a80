package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/locomo"
	"github.com/amem-dev/amem/uselite"
)

// The labelled tag set (testdata/LABELLING.md): everyday agent memories
// with their text, and LoCoMo dev turns by reference only, because the
// LoCoMo licence keeps its text out of the repository.
const (
	everydayLabels = "testdata/tags-everyday.jsonl"
	locomoLabels   = "testdata/tags-locomo.jsonl"
	locomoDev      = "../../shared/locomo/locomo-dev.json"
)

// labelled is one note of the tag set and its gold tags.
type labelled struct {
	key  string // the text, or "sample_id/dia_id" for a LoCoMo turn
	text string
	gold []string
}

// heldOut reports whether a labelled note belongs to the held-out part:
// a third of the set, chosen by a hash of its key before any rule was
// tuned, so the tuning never saw it. The prefix keeps the split
// independent of the hash that sampled the LoCoMo turns.
func (l labelled) heldOut() bool {
	h := fnv.New32a()
	h.Write([]byte("split:" + l.key))
	return h.Sum32()%3 == 0
}

func readJSONL(t testing.TB, path string, each func(line []byte) error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if err := each(sc.Bytes()); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
}

func checkGold(tags []string) error {
	for _, g := range tags {
		if !inTaxonomy(g) {
			return fmt.Errorf("gold tag %q is not in the taxonomy", g)
		}
	}
	return nil
}

func loadEveryday(t testing.TB) []labelled {
	var out []labelled
	readJSONL(t, everydayLabels, func(line []byte) error {
		var r struct {
			Text string   `json:"text"`
			Tags []string `json:"tags"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		out = append(out, labelled{key: r.Text, text: r.Text, gold: r.Tags})
		return checkGold(r.Tags)
	})
	return out
}

// loadLoCoMoLabelled resolves the LoCoMo references against the dev
// split, which must be present: a silently skipped measurement would be
// read as a pass.
func loadLoCoMoLabelled(t testing.TB) []labelled {
	path := os.Getenv("AMEM_LOCOMO_DATA")
	if path == "" {
		path = locomoDev
	}
	if _, err := os.Stat(path); err != nil {
		// The licence keeps LoCoMo out of the repository, as package
		// locomo's real-data tests do; the everyday part runs anyway.
		msg := fmt.Sprintf("SKIPPING: the LoCoMo part of the tag set reads its text from %s (not in the repository; set AMEM_LOCOMO_DATA; see testdata/LABELLING.md): %v", path, err)
		fmt.Fprintln(os.Stderr, "offline: "+msg)
		t.Skip(msg)
	}
	convs, err := locomo.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, c := range convs {
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				text[c.SampleID+"/"+tu.DiaID] = tu.Content()
			}
		}
	}
	var out []labelled
	readJSONL(t, locomoLabels, func(line []byte) error {
		var r struct {
			SampleID string   `json:"sample_id"`
			DiaID    string   `json:"dia_id"`
			Tags     []string `json:"tags"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		key := r.SampleID + "/" + r.DiaID
		s, ok := text[key]
		if !ok {
			return fmt.Errorf("%s is not a turn of %s", key, locomoDev)
		}
		out = append(out, labelled{key: key, text: s, gold: r.Tags})
		return checkGold(r.Tags)
	})
	return out
}

var (
	useLiteOnce sync.Once
	useLiteM    *uselite.Model
	useLiteErr  error
)

// needModel is the project's sentence model, loaded once, or skips: the
// tags' thresholds are cosines of that model, and the hash embedder of the
// other tests says nothing about them. CI installs it ('amem model pull').
func needModel(t testing.TB) *uselite.Model {
	t.Helper()
	dir := os.Getenv("AMEM_MODEL_DIR")
	var err error
	if dir == "" {
		dir, err = uselite.DefaultDir()
	}
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "dist", "model.json"))
	}
	if err != nil {
		t.Skipf("SKIPPING: the USE-lite model is not installed (%v); run 'amem model pull' (CI does)", err)
	}
	useLiteOnce.Do(func() { useLiteM, useLiteErr = uselite.Load(dir) })
	if useLiteErr != nil {
		t.Fatal(useLiteErr)
	}
	return useLiteM
}

// tagScore counts a tagger's decisions against gold tags, in all and per
// tag.
type tagScore struct {
	tp, fp, fn int
	perTag     map[string]*[3]int // tp, fp, fn
	mistakes   []string
}

func (s *tagScore) add(l labelled, got []string) {
	if s.perTag == nil {
		s.perTag = map[string]*[3]int{}
	}
	count := func(tag string, i int) {
		if s.perTag[tag] == nil {
			s.perTag[tag] = &[3]int{}
		}
		s.perTag[tag][i]++
	}
	var wrong, missed []string
	for _, g := range got {
		if slices.Contains(l.gold, g) {
			s.tp++
			count(g, 0)
		} else {
			s.fp++
			count(g, 1)
			wrong = append(wrong, g)
		}
	}
	for _, g := range l.gold {
		if !slices.Contains(got, g) {
			s.fn++
			count(g, 2)
			missed = append(missed, g)
		}
	}
	if len(wrong)+len(missed) > 0 {
		s.mistakes = append(s.mistakes, fmt.Sprintf("%.60q: got %v, gold %v (wrong %v, missed %v)", l.text, got, l.gold, wrong, missed))
	}
}

// precision is 1 when no tag was given: no tag is never a wrong tag.
func (s *tagScore) precision() float64 {
	if s.tp+s.fp == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fp)
}

func (s *tagScore) recall() float64 {
	if s.tp+s.fn == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fn)
}

func (s *tagScore) String() string {
	return fmt.Sprintf("precision %.3f recall %.3f (%d right, %d wrong, %d missed)",
		s.precision(), s.recall(), s.tp, s.fp, s.fn)
}

// confusion is the per-tag table, worst precision first.
func (s *tagScore) confusion() string {
	tags := make([]string, 0, len(s.perTag))
	for t := range s.perTag {
		tags = append(tags, t)
	}
	sort.Slice(tags, func(i, j int) bool {
		a, b := s.perTag[tags[i]], s.perTag[tags[j]]
		if a[1] != b[1] {
			return a[1] > b[1]
		}
		return tags[i] < tags[j]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %5s %5s %5s\n", "tag", "right", "wrong", "missed")
	for _, t := range tags {
		c := s.perTag[t]
		fmt.Fprintf(&b, "%-14s %5d %5d %5d\n", t, c[0], c[1], c[2])
	}
	return b.String()
}

// curatorTags are the tags Construct gives each note, with no caller tags.
func curatorTags(t testing.TB, c *Curator, set []labelled) [][]string {
	out := make([][]string, len(set))
	for i, l := range set {
		a, err := c.Construct(context.Background(), amem.Note{Content: l.text})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = a.Tags
	}
	return out
}

// scoreSplits scores the set in all and in its tuning and held-out parts.
func scoreSplits(set []labelled, got [][]string) (all, tuning, held tagScore) {
	for i, l := range set {
		all.add(l, got[i])
		if l.heldOut() {
			held.add(l, got[i])
		} else {
			tuning.add(l, got[i])
		}
	}
	return all, tuning, held
}

// minTagPrecision is what issue 15 asks of curator tags: a wrong tag is
// worse than none.
const minTagPrecision = 0.9

// checkTagPrecision reports precision and recall of the curator's tags on
// the set, its tuning and held-out parts, and the parts named, and fails
// when the whole set's precision is under minTagPrecision.
func checkTagPrecision(t *testing.T, name string, parts map[string][]labelled) {
	c := New(needModel(t), nil)
	var set []labelled
	for _, part := range slices.Sorted(maps.Keys(parts)) {
		got := curatorTags(t, c, parts[part])
		all, tuning, held := scoreSplits(parts[part], got)
		if len(parts) > 1 {
			t.Logf("%s, %d notes: %v", part, len(parts[part]), &all)
		}
		t.Logf("%s, tuning part: %v", part, &tuning)
		t.Logf("%s, held-out part: %v", part, &held)
		set = append(set, parts[part]...)
	}
	all, tuning, held := scoreSplits(set, curatorTags(t, c, set))
	if len(parts) > 1 {
		t.Logf("%s, tuning part: %v", name, &tuning)
		t.Logf("%s, held-out part: %v", name, &held)
	}
	t.Logf("%s, all %d notes: %v", name, len(set), &all)
	if all.precision() < minTagPrecision || testing.Verbose() {
		t.Logf("per tag:\n%s\nmistakes:\n%s", all.confusion(), strings.Join(all.mistakes, "\n"))
	}
	if p := all.precision(); p < minTagPrecision {
		t.Errorf("%s: tag precision %.3f < %.2f", name, p, minTagPrecision)
	}
}

// TestTagPrecisionEveryday measures the curator's tags on the committed
// everyday memories; it runs wherever the model is installed (CI).
func TestTagPrecisionEveryday(t *testing.T) {
	checkTagPrecision(t, "everyday memories", map[string][]labelled{"everyday": loadEveryday(t)})
}

// TestTagPrecisionLabelled measures them on the whole labelled set, with
// the LoCoMo dev turns; it fails, naming the file, when the dev split is
// not where the benchmarks expect it.
func TestTagPrecisionLabelled(t *testing.T) {
	checkTagPrecision(t, "labelled set", map[string][]labelled{
		"everyday": loadEveryday(t),
		"LoCoMo":   loadLoCoMoLabelled(t),
	})
}

// TestNoPetsOnIssueNotes: issue 15 found "pets" on a penicillin-allergy
// note, a running-shoes note and a window-seat note, so a pets filter
// returned the allergy note. Neither construction nor a pet note linking
// to them, which offers them its tag, may give them "pets".
func TestNoPetsOnIssueNotes(t *testing.T) {
	m := needModel(t)
	c := New(m, nil)
	ctx := context.Background()
	var cands []amem.Candidate
	for i, s := range []string{
		"Allergic to penicillin.",
		"Needs new running shoes.",
		"Prefers a window seat on flights.",
	} {
		n := amem.Note{ID: fmt.Sprint("n", i), Namespace: "t", Content: s}
		v, err := m.Embed(ctx, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		n.Embedding = v[0]
		a, err := c.Construct(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(a.Tags, "pets") {
			t.Errorf("%q tagged %v", s, a.Tags)
		}
		n.Keywords, n.Tags, n.Context = a.Keywords, a.Tags, a.Context
		// Linked as closely as can be, so evolution has to decide.
		cands = append(cands, amem.Candidate{Note: n, Similarity: 0.9})
	}
	pet := amem.Note{ID: "pet", Namespace: "t", Content: "We adopted a puppy and took him to the vet.",
		Keywords: []string{"puppy", "vet"}, Tags: []string{"pets"}}
	d, err := c.Connect(ctx, pet, cands)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) == 0 {
		t.Fatal("the pet note linked to none of them: evolution was not tested")
	}
	for _, e := range d.Evolve {
		if slices.Contains(e.Tags, "pets") {
			t.Errorf("evolution gives %s 'pets': %s", e.Target, e.Reason)
		}
	}
}

// TestSweepTagLift is how TagMinLift was chosen: with AMEM_TAG_SWEEP set
// it prints precision and recall over a range of lifts on the tuning and
// held-out parts of the whole labelled set. The default is the smallest
// lift from which the tuning part's precision stays at or above 0.9; the
// held-out part is only reported.
func TestSweepTagLift(t *testing.T) {
	if os.Getenv("AMEM_TAG_SWEEP") == "" {
		t.Skip("set AMEM_TAG_SWEEP=1 to sweep TagMinLift")
	}
	m := needModel(t)
	set := append(loadEveryday(t), loadLoCoMoLabelled(t)...)
	var p prototypes
	protos, err := p.get(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	ranked := make([][]scoredTag, len(set))
	for i, l := range set {
		v, err := m.Embed(context.Background(), []string{l.text})
		if err != nil {
			t.Fatal(err)
		}
		ranked[i] = rankTags(protos, v[0])
	}
	opt := (*Options)(nil).withDefaults()
	for lift := 0.14; lift < 0.265; lift += 0.01 {
		got := make([][]string, len(set))
		for i := range set {
			got[i] = chooseTags(ranked[i], opt.MaxTags, lift, opt.TagMargin)
		}
		_, tuning, held := scoreSplits(set, got)
		t.Logf("lift %.2f: tuning %v; held-out %v", lift, &tuning, &held)
	}
}
