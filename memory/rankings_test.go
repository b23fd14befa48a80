package memory_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/searchtune"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/sqlite"
)

// hitIDs searches in hybrid mode, the conversation profile unless req
// names another, without linked notes, with the evaluation's tuning tn
// (internal/searchtune) if given, and returns the direct hits' IDs.
func hitIDs(t *testing.T, mem *memory.Memory, req amem.SearchRequest, tn ...searchtune.Tuning) []string {
	t.Helper()
	req.Namespace, req.Mode, req.LinksPerHit = "ns", amem.SearchHybrid, -1
	if req.Profile == "" {
		req.Profile = amem.ProfileConversation // the rankings' profile
	}
	ctx := context.Background()
	if len(tn) > 0 {
		ctx = searchtune.With(ctx, tn[0])
	}
	res, err := mem.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.Note.ID
	}
	return ids
}

// openWeighted opens a Memory that weighs the full-text ranking 4:1, as
// the offline default does, with the lexical embedder and options o.
func openWeighted(t *testing.T, o memory.Options) *memory.Memory {
	t.Helper()
	o.Embedder, o.Search.LexicalWeight, o.Logger = lexical.New(nil), 4, quiet
	mem := openOpts(t, filepath.Join(t.TempDir(), "amem.db"), o)
	t.Cleanup(func() { mem.Close() })
	return mem
}

func addAt(t *testing.T, mem *memory.Memory, content string, at time.Time, keywords ...string) amem.Note {
	t.Helper()
	n, err := mem.Add(context.Background(), amem.AddRequest{Namespace: "ns", Content: content, EventTime: at, Keywords: keywords})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The reply ranking lifts the note said right after a matching one, which
// shares no word with the query, to just below it.
func TestReplyRankingLiftsTheNextNote(t *testing.T) {
	mem := openWeighted(t, memory.Options{})
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	question := addAt(t, mem, "what have you been painting lately?", t0)
	reply := addAt(t, mem, "a sunset over the lake, with purple clouds", t0)
	// Near the query in spelling (the lexical embedder's vectors), not in
	// words: they outrank the reply on the vector side only.
	for i, s := range []string{"the painter's latest show", "paintball, later", "a latecomer's paintwork"} {
		addAt(t, mem, s, t0.Add(time.Duration(2+i)*time.Hour))
	}
	req := amem.SearchRequest{Query: "painting lately", K: 2}
	plain := hitIDs(t, mem, req)
	if len(plain) != 2 || plain[0] != question.ID || plain[1] == reply.ID {
		t.Fatalf("without the reply ranking: %v, want the question %s first, then not its reply", plain, question.ID)
	}
	if got := hitIDs(t, mem, req, searchtune.Tuning{ReplyWeight: 2}); !slices.Equal(got, []string{question.ID, reply.ID}) {
		t.Fatalf("with the reply ranking: %v, want the question %s, then its reply %s", got, question.ID, reply.ID)
	}
	// Negative turns the ranking off again, whatever the options say.
	if off := hitIDs(t, mem, req, searchtune.Tuning{ReplyWeight: -1}); !slices.Equal(off, plain) {
		t.Fatalf("reply weight -1: %v, want %v", off, plain)
	}
}

// A reply is the next note in the namespace, said within the hour: not a
// note written days later, and each note is placed once.
func TestRepliesAreTheNextNoteWithinTheHour(t *testing.T) {
	mem := openWeighted(t, memory.Options{})
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	a := addAt(t, mem, "what have you been painting lately?", t0)
	b := addAt(t, mem, "a sunset over the lake", t0.Add(50*time.Minute))
	c := addAt(t, mem, "my painting class starts on Monday", t0.Add(26*time.Hour))
	d := addAt(t, mem, "our roof needs new tiles", t0.Add(74*time.Hour))
	got, err := mem.Replies(context.Background(), "ns", []string{c.ID, a.ID, d.ID, b.ID})
	if err != nil {
		t.Fatal(err)
	}
	// c's next note is two days on; d is the last; b's next is a day on.
	if !slices.Equal(got, []string{b.ID}) {
		t.Fatalf("replies %v, want only %s (the reply to %s)", got, b.ID, a.ID)
	}
}

// The feedback ranking searches the first hits' keywords: a note that
// shares none of the query's words but a keyword of the best hit rises.
func TestFeedbackRankingSearchesTheHitsKeywords(t *testing.T) {
	mem := openWeighted(t, memory.Options{})
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	adopted := addAt(t, mem, "we adopted a puppy", t0, "puppy", "shelter")
	visit := addAt(t, mem, "the shelter visit on Sunday was long", t0.Add(48*time.Hour))
	for i, s := range []string{"a costume for the party", "the neighbours' dog barks", "lunch with grandma", "a long drive home"} {
		addAt(t, mem, s, t0.Add(time.Duration(96+i)*time.Hour))
	}
	req := amem.SearchRequest{Query: "adopted puppy", K: 2}
	plain := hitIDs(t, mem, req)
	if len(plain) == 0 || plain[0] != adopted.ID || slices.Contains(plain, visit.ID) {
		t.Fatalf("without feedback: %v, want %s first and not %s", plain, adopted.ID, visit.ID)
	}
	got := hitIDs(t, mem, req, searchtune.Tuning{FeedbackWeight: 2})
	if len(got) == 0 || got[0] != adopted.ID || !slices.Contains(got, visit.ID) {
		t.Fatalf("with feedback: %v, want %s first and %s among the hits", got, adopted.ID, visit.ID)
	}
}

// The options' weights are the default that a tuning's zero keeps.
func TestRankingWeightsFromOptions(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	mem := openWeighted(t, memory.Options{Search: memory.SearchOptions{ReplyWeight: 2}})
	if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "what have you been painting lately?", EventTime: t0}); err != nil {
		t.Fatal(err)
	}
	reply, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "a sunset over the lake", EventTime: t0})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{"the painter's latest show", "paintball, later"} {
		if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: s, EventTime: t0.Add(time.Duration(2+i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	got := hitIDs(t, mem, amem.SearchRequest{Query: "painting lately", K: 2})
	if !slices.Contains(got, reply.ID) {
		t.Fatalf("Options.Search.ReplyWeight 2: %v, want the reply %s among 2", got, reply.ID)
	}
	got = hitIDs(t, mem, amem.SearchRequest{Query: "painting lately", K: 2}, searchtune.Tuning{ReplyWeight: -1})
	if slices.Contains(got, reply.ID) {
		t.Fatalf("a tuning's -1 did not turn the options' ranking off: %v", got)
	}
	// The general profile has no reply ranking, whatever the options say.
	got = hitIDs(t, mem, amem.SearchRequest{Query: "painting lately", K: 2, Profile: amem.ProfileGeneral})
	if slices.Contains(got, reply.ID) {
		t.Fatalf("the general profile brought the reply: %v", got)
	}
}

func TestRankingWeightsMustBeFinite(t *testing.T) {
	mem := openMem(t, nil)
	mustAdd(t, mem, "ns", "hiking in the hills")
	for _, tn := range []searchtune.Tuning{
		{ReplyWeight: math.NaN()}, {ReplyWeight: math.Inf(1)}, {FeedbackWeight: math.Inf(-1)}, {LexicalWeight: -1},
	} {
		req := amem.SearchRequest{Namespace: "ns", Query: "hiking"}
		if _, err := mem.Search(searchtune.With(context.Background(), tn), req); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("tuning %+v: %v, want ErrInvalid", tn, err)
		}
	}
}

// A day spread makes room for a note of another day among the hits; off,
// one day's notes fill them.
func TestDaySpreadMakesRoomForOtherDays(t *testing.T) {
	mem := openWeighted(t, memory.Options{})
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	first := addAt(t, mem, "we went camping by the lake", t0)
	second := addAt(t, mem, "camping by the lake again, the kids loved it", t0.Add(time.Hour))
	addAt(t, mem, "the lake was cold for camping", t0.Add(2*time.Hour))
	other := addAt(t, mem, "camping in the woods", t0.Add(30*24*time.Hour))
	req := amem.SearchRequest{Query: "camping lake", K: 2}
	if got := hitIDs(t, mem, req); len(got) != 2 || slices.Contains(got, other.ID) {
		t.Fatalf("without spread: %v, want two notes of the first day", got)
	}
	got := hitIDs(t, mem, req, searchtune.Tuning{DaySpread: 0.5})
	if len(got) != 2 || !slices.Contains([]string{first.ID, second.ID}, got[0]) || got[1] != other.ID {
		t.Fatalf("spread 0.5: %v, want a note of the first day, then %s", got, other.ID)
	}
	for _, s := range []float64{1, 2, math.NaN()} {
		if _, err := mem.Search(searchtune.With(context.Background(), searchtune.Tuning{DaySpread: s}), amem.SearchRequest{Namespace: "ns", Query: "camping"}); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("day spread %v: %v, want ErrInvalid", s, err)
		}
	}
}

// The dense feedback ranking searches the mean of the first hits'
// embeddings: a note near the best hit, but not near the query, rises.
func TestDenseFeedbackSearchesNearTheHits(t *testing.T) {
	mem := openWeighted(t, memory.Options{})
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	adopted := addAt(t, mem, "we adopted a puppy from the shelter downtown", t0)
	near := addAt(t, mem, "the shelter downtown was crowded", t0.Add(48*time.Hour))
	for i, s := range []string{"a costume for the party", "lunch with grandma", "a long drive home"} {
		addAt(t, mem, s, t0.Add(time.Duration(96+i)*time.Hour))
	}
	req := amem.SearchRequest{Query: "adopted puppy", K: 2}
	plain := hitIDs(t, mem, req)
	if len(plain) == 0 || plain[0] != adopted.ID || slices.Contains(plain, near.ID) {
		t.Fatalf("without dense feedback: %v, want %s first and not %s", plain, adopted.ID, near.ID)
	}
	got := hitIDs(t, mem, req, searchtune.Tuning{DenseFeedbackWeight: 2})
	if !slices.Equal(got, []string{adopted.ID, near.ID}) {
		t.Fatalf("with dense feedback: %v, want %s then %s", got, adopted.ID, near.ID)
	}
}

// The reply ranking reads the next note and both event times from the
// full-text index; it must answer as the store does (its notes in ID
// order, the next one after each within the hour) after
// random adds, event-time updates and deletes, in the process
// that wrote them, in another process following the feed, and in one
// reopened from the saved indexes.
func TestRepliesFollowTheStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, idx := filepath.Join(dir, "amem.db"), filepath.Join(dir, "idx")
	o := memory.Options{Embedder: lexical.New(nil), Logger: quiet, Indexes: kernel.Options{IndexDir: idx, ApproximateFrom: 20}}
	a, b := openOpts(t, path, o), openOpts(t, path, o)
	defer a.Close()
	defer b.Close()
	r := rand.New(rand.NewPCG(7, 8))
	t0 := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	var ids []string
	st, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	want := func() []string {
		// The store's answer for every note, as hits in ID order: each
		// note's successor in ID order (IDs grow with ingest time, so
		// the note written next), read from the store's list.
		var out []string
		err := st.View(ctx, func(tx amem.Tx) error {
			var all []amem.Note
			err := amem.EachPage(func(after string, limit int) ([]amem.Note, error) {
				return tx.ListNotes("ns", amem.ListQuery{After: after, Limit: limit})
			}, func(page []amem.Note) (bool, error) {
				all = append(all, page...)
				return true, nil
			})
			if err != nil {
				return err
			}
			type nextNote struct {
				at, nextAt time.Time
				next       string
			}
			next := map[string]nextNote{}
			for i := 0; i+1 < len(all); i++ {
				next[all[i].ID] = nextNote{at: all[i].EventTime, next: all[i+1].ID, nextAt: all[i+1].EventTime}
			}
			placed := map[string]bool{}
			for _, id := range ids {
				n, ok := next[id]
				if !ok || placed[n.next] {
					continue
				}
				if d := n.nextAt.Sub(n.at); d < -time.Hour || d > time.Hour {
					continue
				}
				placed[n.next] = true
				out = append(out, n.next)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(what string, mems ...*memory.Memory) {
		t.Helper()
		exp := want()
		for i, mem := range mems {
			got, err := mem.Replies(ctx, "ns", ids)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("%s, memory %d: replies %v, the store's %v", what, i, got, exp)
			}
		}
	}
	for round := range 6 {
		for range 15 {
			switch op := r.IntN(10); {
			case op < 6 || len(ids) < 3:
				n, err := a.Add(ctx, amem.AddRequest{Namespace: "ns", Content: fmt.Sprintf("note %d", len(ids)),
					EventTime: t0.Add(time.Duration(r.IntN(240)) * time.Minute)})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, n.ID)
			case op < 8:
				at := t0.Add(time.Duration(r.IntN(240)) * time.Minute)
				if _, err := a.Update(ctx, "ns", ids[r.IntN(len(ids))], amem.UpdateRequest{EventTime: &at}); err != nil {
					t.Fatal(err)
				}
			default:
				i := r.IntN(len(ids))
				if err := a.Delete(ctx, "ns", ids[i]); err != nil {
					t.Fatal(err)
				}
				ids = slices.Delete(ids, i, i+1)
			}
		}
		check(fmt.Sprintf("round %d", round), a, b)
	}
	// The approximate index (from 20 notes) builds in the background
	// and saves the full-text index beside it; a new process reads that.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(idx, "*.lex")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no saved full-text index")
		}
		a.Search(ctx, amem.SearchRequest{Namespace: "ns", Query: "note", Mode: amem.SearchVector})
		time.Sleep(20 * time.Millisecond)
	}
	c := openOpts(t, path, o)
	defer c.Close()
	check("reopened from the saved indexes", c)
	// And the changes after the save, caught up from the feed.
	n, err := a.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "the last note", EventTime: t0.Add(30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, n.ID)
	check("after the save", a, b, c)
}
