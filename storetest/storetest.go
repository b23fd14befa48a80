// Package storetest is the conformance suite for amem.Store
// implementations. An implementation's tests call Run with a function that
// opens a fresh, empty store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) amem.Store {
//			s, err := mystore.Open(...)
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// Beyond the interface's documentation, the suite holds stores to these
// rules, which Memory and the JSON API rely on:
//
//   - times come back equal (to the nanosecond) and in UTC; the zero time
//     comes back zero;
//   - Keywords, Tags and Links are never nil (JSON shows []), Metadata and
//     CuratorTags are nil when empty, Embedding is nil when there is none;
//   - CuratorTags come back as the note's tags they name (any case), in
//     Tags' order; one that is none of the note's tags is not kept;
//   - a note of another namespace is amem.ErrNotFound everywhere, and a
//     link across namespaces can't be made;
//   - MatchIDs compares tags case-insensitively, metadata exactly, and
//     bounds EventTime by From <= t < To; Filter.TagSource narrows the
//     tags compared to the caller's (Tags less CuratorTags) or the
//     curator's;
//   - LexicalSearch accepts any text without error, and filters inside
//     its ranking: the result is the unfiltered ranking restricted to the
//     notes MatchIDs passes, cut at the limit; a filter of a thousand
//     terms is no error;
//   - a View sees one snapshot: two reads in it agree however many
//     writes commit meanwhile (Postgres: REPEATABLE READ);
//   - a method that fails with ErrNotFound (PutLink to a deleted note)
//     leaves the transaction usable: Memory skips such links and goes on;
//   - AddVersion of a missing note is amem.ErrNotFound, of an existing
//     version amem.ErrConflict;
//   - the trash (amem.Trasher) gives back what it was given, times in UTC,
//     from its own namespace only, and a note trashed and inserted again
//     is a removal and then a change in the feed;
//   - a namespace's retention policy (amem.Retainer) comes back as
//     written, whether the namespace holds notes or not; the zero policy
//     is none; CountBefore counts undated notes as before any time;
//   - a note's validity and a link's kind come back as written, and
//     Filter.ValidAt passes notes without a ValidUntil or with one after
//     it;
//   - Close may be called twice; Update and View after it return
//     amem.ErrClosed.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

// usageKeeper and eventRecorder return the Tx's optional abilities: the
// suite holds a store to every ability, the optional ones included (a
// store that leaves one out runs the other tests by name).
func usageKeeper(t *testing.T, tx amem.Tx) amem.UsageKeeper {
	t.Helper()
	k, ok := tx.(amem.UsageKeeper)
	if !ok {
		t.Fatalf("%T does not implement amem.UsageKeeper", tx)
	}
	return k
}

func eventRecorder(t *testing.T, tx amem.Tx) amem.EventRecorder {
	t.Helper()
	r, ok := tx.(amem.EventRecorder)
	if !ok {
		t.Fatalf("%T does not implement amem.EventRecorder", tx)
	}
	return r
}

// Run runs the conformance suite, one subtest per behaviour. open must
// return a new, empty store each time it is called, and close it when the
// test ends (a store the test closed itself must tolerate that).
func Run(t *testing.T, open func(t *testing.T) amem.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s amem.Store)
	}{
		{"NoteRoundTrip", testNoteRoundTrip},
		{"TimesRoundTrip", testTimesRoundTrip},
		{"EmptyFields", testEmptyFields},
		{"Namespaces", testNamespaces},
		{"Isolation", testIsolation},
		{"InsertConflict", testInsertConflict},
		{"UpdateNote", testUpdateNote},
		{"DeleteNote", testDeleteNote},
		{"NotesBatch", testNotesBatch},
		{"NoteIDsByContent", testNoteIDsByContent},
		{"Links", testLinks},
		{"ListNotes", testListNotes},
		{"NotesByEventTime", testNotesByEventTime},
		{"MatchIDs", testMatchIDs},
		{"CuratorTags", testCuratorTags},
		{"CallerAttributes", testCallerAttributes},
		{"MatchIDsTagSource", testMatchIDsTagSource},
		{"LexicalSearch", testLexicalSearch},
		{"LexicalSearchFields", testLexicalSearchFields},
		{"LexicalSearchFilter", testLexicalSearchFilter},
		{"LexicalSearchHostile", testLexicalSearchHostile},
		{"LexicalSearchSync", testLexicalSearchSync},
		{"EmbeddingsOf", testEmbeddings},
		{"Versions", testVersions},
		{"Usage", testUsage},
		{"Stats", testStats},
		{"RollbackOnError", testRollbackOnError},
		{"RollbackOnPanic", testRollbackOnPanic},
		{"ViewIsReadOnly", testViewIsReadOnly},
		{"CanceledContext", testCanceledContext},
		{"TxAfterFn", testTxAfterFn},
		{"Concurrent", testConcurrent},
		{"Feed", testFeed},
		{"FeedCompaction", testFeedCompaction},
		{"FeedConcurrent", testFeedConcurrent},
		{"UpdateNoteCAS", testUpdateNoteCAS},
		{"Claims", testClaims},
		{"ClaimsConcurrent", testClaimsConcurrent},
		{"HistoryUnderConcurrentEvolution", testHistoryUnderConcurrentEvolution},
		{"WebhookOutbox", testWebhookOutbox},
		{"WebhookEventIDs", testWebhookEventIDs},
		{"WebhookFinishRound", testWebhookFinishRound},
		{"WebhookClaimsConcurrent", testWebhookClaimsConcurrent},
		{"Trash", testTrash},
		{"TrashFeed", testTrashFeed},
		{"Retention", testRetention},
		{"Closed", testClosed},
		{"Validity", testValidity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

// ids makes note IDs (ULIDs) unique across processes and runs, so that
// stores sharing a database between tests still don't collide.
var idSeq atomic.Uint64

func newID() string {
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	_, _ = rand.Read(b[6:12])
	binary.BigEndian.PutUint32(b[12:16], uint32(idSeq.Add(1)))
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var out [26]byte
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// newNS returns a namespace name unique to this run.
func newNS(prefix string) string {
	return fmt.Sprintf("%s-%d-%s", prefix, idSeq.Add(1), newID()[20:])
}

// base is a fixed time with nanoseconds, not in UTC, so that stores must
// convert.
var base = time.Date(2024, 3, 9, 14, 30, 15, 123456789, time.FixedZone("UTC+2", 2*3600))

// newNote returns a note of ns with every field set.
func newNote(ns, content string) amem.Note {
	return amem.Note{
		ID:         newID(),
		Namespace:  ns,
		Content:    content,
		EventTime:  base,
		IngestTime: base.Add(time.Hour + 7),
		UpdatedAt:  base.Add(2*time.Hour + 11),
		Keywords:   []string{"alpha", "beta"},
		Tags:       []string{"Work", "project"},
		Context:    "a note for the conformance suite",
		Metadata:   map[string]string{"source": "chat", "speaker": "Ada"},
		Embedding:  []float32{0.25, -1, 3.5e-8, 42},
		Links:      []amem.Link{},
		Version:    1,
		Enrichment: amem.Enrichment{State: amem.EnrichPending},
	}
}

func update(t *testing.T, s amem.Store, fn func(tx amem.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

func view(t *testing.T, s amem.Store, fn func(tx amem.Tx) error) {
	t.Helper()
	if err := s.View(context.Background(), fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

// insert stores notes, each with a first version, in one transaction.
func insert(t *testing.T, s amem.Store, notes ...amem.Note) {
	t.Helper()
	update(t, s, func(tx amem.Tx) error {
		for _, n := range notes {
			if err := tx.InsertNote(n); err != nil {
				return err
			}
		}
		return nil
	})
}

func putLinks(t *testing.T, s amem.Store, ns string, links ...amem.Link) {
	t.Helper()
	update(t, s, func(tx amem.Tx) error {
		for _, l := range links {
			if err := tx.PutLink(ns, l); err != nil {
				return err
			}
		}
		return nil
	})
}

func getNote(t *testing.T, s amem.Store, ns, id string) amem.Note {
	t.Helper()
	var n amem.Note
	view(t, s, func(tx amem.Tx) error {
		var err error
		n, err = tx.Note(ns, id)
		return err
	})
	return n
}

// wantNotFound fails unless err wraps amem.ErrNotFound.
func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, amem.ErrNotFound) {
		t.Errorf("%s: err = %v, want amem.ErrNotFound", what, err)
	}
}

// normalize returns n as a store should return it: times in UTC.
func normalize(n amem.Note) amem.Note {
	n = n.Clone()
	n.EventTime, n.IngestTime, n.UpdatedAt = n.EventTime.UTC(), n.IngestTime.UTC(), n.UpdatedAt.UTC()
	n.Enrichment.At = n.Enrichment.At.UTC()
	n.ValidUntil = n.ValidUntil.UTC()
	for i := range n.Links {
		n.Links[i].CreatedAt = n.Links[i].CreatedAt.UTC()
	}
	return n
}

// checkUTC fails for each non-zero time of n that isn't in UTC.
func checkUTC(t *testing.T, n amem.Note) {
	t.Helper()
	check := func(name string, tm time.Time) {
		if !tm.IsZero() && tm.Location() != time.UTC {
			t.Errorf("note %s: %s is in %v, want UTC", n.ID, name, tm.Location())
		}
	}
	check("EventTime", n.EventTime)
	check("IngestTime", n.IngestTime)
	check("UpdatedAt", n.UpdatedAt)
	check("Enrichment.At", n.Enrichment.At)
	check("ValidUntil", n.ValidUntil)
	for _, l := range n.Links {
		check("link CreatedAt", l.CreatedAt)
	}
}

// checkNote fails unless got is want as a store returns it.
func checkNote(t *testing.T, got, want amem.Note) {
	t.Helper()
	checkUTC(t, got)
	w := normalize(want)
	g := normalize(got)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("note %s:\n got %+v\nwant %+v", want.ID, g, w)
	}
	if got.Keywords == nil || got.Tags == nil || got.Links == nil {
		t.Errorf("note %s: nil Keywords, Tags or Links: %#v %#v %#v", want.ID, got.Keywords, got.Tags, got.Links)
	}
}

// sorted returns a sorted copy of ids.
func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	if out == nil {
		out = []string{}
	}
	return out
}

func noteIDs(notes []amem.Note) []string {
	ids := make([]string, len(notes))
	for i, n := range notes {
		ids[i] = n.ID
	}
	return ids
}

func scoredIDs(hits []amem.Scored) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}
