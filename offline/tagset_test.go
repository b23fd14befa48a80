package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
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
	freshLabels    = "testdata/tags-fresh.jsonl"
	tuningLabels   = "testdata/tags-tuning.jsonl"
	locomoLabels   = "testdata/tags-locomo.jsonl"
	locomoDev      = "../../shared/locomo/locomo-dev.json"
)

// labelled is one note of the tag set and its gold tags.
type labelled struct {
	key   string // the text, or "sample_id/dia_id" for a LoCoMo turn
	text  string
	gold  []string
	split split
}

// split says which part a labelled note is in.
type split int

const (
	hashed split = iota // tuning or held out by a hash of the key (heldOut)
	// fresh notes (testdata/tags-fresh.jsonl) are all held out: nothing
	// is tuned on them.
	fresh
	// tuningOnly notes (testdata/tags-tuning.jsonl) are all tuning:
	// written to give the rule more to learn from.
	tuningOnly
)

// heldOut reports whether a labelled note belongs to the held-out part:
// a third of the set, chosen by a hash of its key before any rule was
// tuned, so the tuning never saw it. The prefix keeps the split
// independent of the hash that sampled the LoCoMo turns.
func (l labelled) heldOut() bool {
	switch l.split {
	case fresh:
		return true
	case tuningOnly:
		return false
	}
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

func loadEveryday(t testing.TB) []labelled { return loadTexts(t, everydayLabels, hashed) }

// loadFresh is the second held-out set, all of it held out.
func loadFresh(t testing.TB) []labelled { return loadTexts(t, freshLabels, fresh) }

// loadTuning is the second tuning set, all of it tuning.
func loadTuning(t testing.TB) []labelled { return loadTexts(t, tuningLabels, tuningOnly) }

func loadTexts(t testing.TB, path string, sp split) []labelled {
	var out []labelled
	readJSONL(t, path, func(line []byte) error {
		var r struct {
			Text string   `json:"text"`
			Tags []string `json:"tags"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		out = append(out, labelled{key: r.Text, text: r.Text, gold: r.Tags, split: sp})
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
// the set, on each part's tuning and held-out notes, on the first
// held-out part (hashed out of the tuning files) and on the fresh set,
// and fails when the whole set's precision, or the fresh held-out set's,
// is under minTagPrecision.
func checkTagPrecision(t *testing.T, name string, parts map[string][]labelled) {
	c := New(needModel(t), nil)
	var set []labelled
	var got [][]string
	for _, part := range slices.Sorted(maps.Keys(parts)) {
		tags := curatorTags(t, c, parts[part])
		all, tuning, held := scoreSplits(parts[part], tags)
		t.Logf("%s, %d notes: %v", part, len(parts[part]), &all)
		if tuning.tp+tuning.fp+tuning.fn > 0 && held.tp+held.fp+held.fn > 0 {
			t.Logf("%s, tuning part: %v", part, &tuning)
			t.Logf("%s, held-out part: %v", part, &held)
		}
		set = append(set, parts[part]...)
		got = append(got, tags...)
	}
	var firstHeld, freshScore tagScore
	for i, l := range set {
		switch {
		case l.split == fresh:
			freshScore.add(l, got[i])
		case l.heldOut():
			firstHeld.add(l, got[i])
		}
	}
	all, tuning, _ := scoreSplits(set, got)
	t.Logf("%s, tuning part: %v", name, &tuning)
	t.Logf("%s, first held-out part: %v", name, &firstHeld)
	t.Logf("%s, fresh held-out set: %v", name, &freshScore)
	t.Logf("%s, all %d notes: %v", name, len(set), &all)
	// The tuning part's mistakes only: reading the held-out ones would
	// tune on them.
	if all.precision() < minTagPrecision || freshScore.precision() < minTagPrecision || testing.Verbose() {
		t.Logf("tuning part, per tag:\n%s\ntuning part, mistakes:\n%s", tuning.confusion(), strings.Join(tuning.mistakes, "\n"))
	}
	if p := all.precision(); p < minTagPrecision {
		t.Errorf("%s: tag precision %.3f < %.2f", name, p, minTagPrecision)
	}
	if p := freshScore.precision(); p < minTagPrecision {
		t.Errorf("%s: tag precision on the fresh held-out set %.3f < %.2f", name, p, minTagPrecision)
	}
}

// TestTagPrecisionEveryday measures the curator's tags on the committed
// everyday memories and the fresh held-out set; it runs wherever the
// model is installed (CI).
func TestTagPrecisionEveryday(t *testing.T) {
	checkTagPrecision(t, "everyday memories", map[string][]labelled{
		"everyday": loadEveryday(t),
		"fresh":    loadFresh(t),
		"tuning":   loadTuning(t),
	})
}

// TestTagPrecisionLabelled measures them on the whole labelled set, with
// the LoCoMo dev turns; it fails, naming the file, when the dev split is
// not where the benchmarks expect it.
func TestTagPrecisionLabelled(t *testing.T) {
	checkTagPrecision(t, "labelled set", map[string][]labelled{
		"everyday": loadEveryday(t),
		"LoCoMo":   loadLoCoMoLabelled(t),
		"fresh":    loadFresh(t),
		"tuning":   loadTuning(t),
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

// wilsonLower is the lower end of the one-sided 95% Wilson interval of a
// proportion of k out of n: how low the precision could be on new notes
// given what the tuning part saw.
func wilsonLower(k, n int) float64 {
	if n == 0 {
		return 0
	}
	const z = 1.645
	p, nf := float64(k)/float64(n), float64(n)
	centre := p + z*z/(2*nf)
	spread := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return (centre - spread) / (1 + z*z/nf)
}

// tagRule is a choice of the two constants that decide Construct's tags.
type tagRule struct{ minLift, minGap float64 }

// chooseTagRule is the rule that sets TagMinLift and TagMinGap from the
// tuning part of the labelled set (never a held-out note): of the lifts
// 0.14-0.30 and gaps 0-0.10, in steps of 0.01, the pair that gives the
// most right tags while its tuning precision's 95% lower bound
// (wilsonLower) is at least minTagPrecision; ties go to fewer wrong tags,
// then the smaller lift and gap. Asking that of the bound rather than of
// the precision itself leaves room for what constants picked on a few
// hundred tags lose on new notes: with the precision itself at 0.9 (lift
// 0.2 alone), the first held-out part scored 0.853 and the fresh set
// 0.843. It logs the tuning score of the best gap at each lift.
func chooseTagRule(t *testing.T) tagRule {
	m := needModel(t)
	var tuning []labelled
	for _, l := range slices.Concat(loadEveryday(t), loadLoCoMoLabelled(t), loadTuning(t)) {
		if !l.heldOut() {
			tuning = append(tuning, l)
		}
	}
	var p prototypes
	protos, err := p.get(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	ranked := make([][]scoredTag, len(tuning))
	for i, l := range tuning {
		v, err := m.Embed(context.Background(), []string{l.text})
		if err != nil {
			t.Fatal(err)
		}
		ranked[i] = rankTags(protos, v[0])
	}
	opt := (*Options)(nil).withDefaults()
	var best tagScore
	var chosen tagRule
	found := false
	for lift := 14; lift <= 30; lift++ {
		var atLift tagScore
		gapAtLift := -1
		for gap := 0; gap <= 10; gap++ {
			r := tagRule{float64(lift) / 100, float64(gap) / 100}
			var score tagScore
			for i, l := range tuning {
				score.add(l, chooseTags(ranked[i], opt.MaxTags, r.minLift, opt.TagMargin, r.minGap))
			}
			if wilsonLower(score.tp, score.tp+score.fp) < minTagPrecision {
				continue
			}
			if gapAtLift < 0 || score.tp > atLift.tp || (score.tp == atLift.tp && score.fp < atLift.fp) {
				atLift, gapAtLift = score, gap
			}
			if !found || score.tp > best.tp || (score.tp == best.tp && score.fp < best.fp) {
				best, chosen, found = score, r, true
			}
		}
		if gapAtLift >= 0 {
			t.Logf("lift %.2f, gap %.2f: tuning %v, precision's lower bound %.3f", float64(lift)/100, float64(gapAtLift)/100,
				&atLift, wilsonLower(atLift.tp, atLift.tp+atLift.fp))
		} else {
			t.Logf("lift %.2f: no gap up to 0.10 brings the precision's lower bound to %.2f", float64(lift)/100, minTagPrecision)
		}
	}
	if !found {
		t.Fatalf("no lift and gap give a tuning precision whose lower bound reaches %.2f", minTagPrecision)
	}
	t.Logf("chosen: lift %.2f, gap %.2f: tuning %v", chosen.minLift, chosen.minGap, &best)
	return chosen
}

// TestTagRuleFollowsTuning: the default TagMinLift and TagMinGap are what
// chooseTagRule gives, so a change to the taxonomy, the model or the
// labels that moves the choice fails here instead of drifting silently.
func TestTagRuleFollowsTuning(t *testing.T) {
	want := chooseTagRule(t)
	opt := (*Options)(nil).withDefaults()
	if math.Abs(opt.TagMinLift-want.minLift) > 1e-9 || math.Abs(opt.TagMinGap-want.minGap) > 1e-9 {
		t.Errorf("default TagMinLift %.2f and TagMinGap %.2f; the rule chooses %.2f and %.2f",
			opt.TagMinLift, opt.TagMinGap, want.minLift, want.minGap)
	}
}
