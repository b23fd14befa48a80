package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

func testNoteRoundTrip(t *testing.T, s amem.Store) {
	ns := newNS("rt")
	n := newNote(ns, "Grüße aus Köln: 東京で会いましょう 🙂 — \"quoted\" <b>&amp;</b>\nline two\ttab")
	n.Keywords = []string{"köln", "東京", "meeting"}
	n.Tags = []string{"Travel", "日本"}
	n.CuratorTags = []string{"日本"}
	n.Context = "Plans to meet; ünïcödé context"
	n.CallerContext = true
	n.Metadata = map[string]string{"speaker": "Zoë", "session": "7", "empty": "", "a.b": "dots & <tags>"}
	n.Embedding = []float32{1, -0.5, 1e-30, 3.4028235e38, 0}
	n.Version = 3
	n.Enrichment = amem.Enrichment{
		State:    amem.EnrichFailed,
		Error:    "curator: timeout after 30s",
		Attempts: 2,
		At:       base.Add(90*time.Minute + 5),
	}
	insert(t, s, n)

	t.Run("Note", func(t *testing.T) {
		checkNote(t, getNote(t, s, ns, n.ID), n)
	})
	t.Run("FindNote", func(t *testing.T) {
		view(t, s, func(tx amem.Tx) error {
			got, err := tx.FindNote(n.ID)
			if err != nil {
				return err
			}
			checkNote(t, got, n)
			return nil
		})
	})
	t.Run("Notes", func(t *testing.T) {
		view(t, s, func(tx amem.Tx) error {
			got, err := tx.Notes(ns, []string{n.ID})
			if err != nil {
				return err
			}
			if len(got) != 1 {
				t.Fatalf("Notes returned %d notes, want 1", len(got))
			}
			checkNote(t, got[0], n)
			return nil
		})
	})
	t.Run("NotesWithoutEmbeddings", func(t *testing.T) {
		view(t, s, func(tx amem.Tx) error {
			got, err := tx.NotesWithoutEmbeddings(ns, []string{n.ID})
			if err != nil {
				return err
			}
			if len(got) != 1 {
				t.Fatalf("NotesWithoutEmbeddings returned %d notes, want 1", len(got))
			}
			if got[0].Embedding != nil {
				t.Errorf("NotesWithoutEmbeddings: embedding %v, want nil", got[0].Embedding)
			}
			want := n
			want.Embedding = nil
			checkNote(t, got[0], want)
			return nil
		})
	})
	t.Run("ListNotes", func(t *testing.T) {
		view(t, s, func(tx amem.Tx) error {
			got, err := tx.ListNotes(ns, amem.ListQuery{Embeddings: true})
			if err != nil {
				return err
			}
			if len(got) != 1 {
				t.Fatalf("ListNotes returned %d notes, want 1", len(got))
			}
			checkNote(t, got[0], n)
			// Without Embeddings, the same note without its vector.
			bare, err := tx.ListNotes(ns, amem.ListQuery{})
			if err != nil {
				return err
			}
			want := n
			want.Embedding = nil
			if len(bare) != 1 {
				t.Fatalf("ListNotes without embeddings returned %d notes, want 1", len(bare))
			}
			checkNote(t, bare[0], want)
			return nil
		})
	})
	t.Run("Mutation", func(t *testing.T) {
		// What a store returns is the caller's: changing it changes nothing stored.
		got := getNote(t, s, ns, n.ID)
		got.Keywords[0] = "changed"
		got.Embedding[0] = 99
		got.Metadata["speaker"] = "changed"
		checkNote(t, getNote(t, s, ns, n.ID), n)
	})
}

func testTimesRoundTrip(t *testing.T, s amem.Store) {
	ns := newNS("times")
	for _, tc := range []struct {
		name string
		t    time.Time
	}{
		{"zero", time.Time{}},
		{"epoch", time.Unix(0, 0)},
		{"one nanosecond", time.Unix(0, 1)},
		{"before epoch", time.Date(1969, 7, 20, 20, 17, 40, 999999999, time.UTC)},
		{"nanoseconds in a zone", base},
		{"far future", time.Date(2200, 12, 31, 23, 59, 59, 1, time.UTC)},
		{"local", time.Unix(1700000000, 5).In(time.Local)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNote(ns, "times: "+tc.name)
			n.EventTime, n.IngestTime, n.UpdatedAt, n.Enrichment.At = tc.t, tc.t, tc.t, tc.t
			insert(t, s, n)
			got := getNote(t, s, ns, n.ID)
			checkNote(t, got, n)
			if tc.t.IsZero() && !got.EventTime.IsZero() {
				t.Errorf("zero EventTime came back as %v", got.EventTime)
			}
		})
	}
}

func testEmptyFields(t *testing.T, s amem.Store) {
	ns := newNS("empty")
	for _, tc := range []struct {
		name string
		edit func(*amem.Note)
	}{
		{"nil lists and maps", func(n *amem.Note) {
			n.Keywords, n.Tags, n.Metadata, n.Embedding, n.Links = nil, nil, nil, nil, nil
		}},
		{"empty lists and maps", func(n *amem.Note) {
			n.Keywords, n.Tags, n.Metadata, n.Embedding = []string{}, []string{}, map[string]string{}, []float32{}
		}},
		{"empty strings", func(n *amem.Note) {
			n.Context, n.Keywords, n.Tags = "", []string{""}, []string{""}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNote(ns, "fields: "+tc.name)
			n.Enrichment = amem.Enrichment{State: amem.EnrichPending}
			tc.edit(&n)
			insert(t, s, n)
			got := getNote(t, s, ns, n.ID)

			want := n
			if len(want.Keywords) == 0 {
				want.Keywords = []string{}
			}
			if len(want.Tags) == 0 {
				want.Tags = []string{}
			}
			if len(want.Metadata) == 0 {
				want.Metadata = nil
				if got.Metadata != nil {
					t.Errorf("Metadata = %#v, want nil", got.Metadata)
				}
			}
			if len(want.Embedding) == 0 {
				want.Embedding = nil
				if got.Embedding != nil {
					t.Errorf("Embedding = %#v, want nil", got.Embedding)
				}
			}
			want.Links = []amem.Link{}
			checkNote(t, got, want)
		})
	}
}

func testNamespaces(t *testing.T, s amem.Store) {
	a, b := newNS("nsa"), newNS("nsb")
	view(t, s, func(tx amem.Tx) error {
		_, err := tx.Namespace(a)
		wantNotFound(t, "Namespace of a new namespace", err)
		return nil
	})
	infoA := amem.NamespaceInfo{Name: a, Embedder: "model-x@1", Dimensions: 384, CreatedAt: base}
	infoB := amem.NamespaceInfo{Name: b, Embedder: "model-y", Dimensions: 3, CreatedAt: base.Add(time.Second)}
	update(t, s, func(tx amem.Tx) error {
		if err := tx.PutNamespace(infoA); err != nil {
			return err
		}
		return tx.PutNamespace(infoB)
	})
	check := func(got, want amem.NamespaceInfo) {
		t.Helper()
		if got.Name != want.Name || got.Embedder != want.Embedder || got.Dimensions != want.Dimensions ||
			!got.CreatedAt.Equal(want.CreatedAt) || got.CreatedAt.Location() != time.UTC {
			t.Errorf("namespace info = %+v, want %+v (in UTC)", got, want)
		}
	}
	view(t, s, func(tx amem.Tx) error {
		got, err := tx.Namespace(a)
		if err != nil {
			return err
		}
		check(got, infoA)
		all, err := tx.Namespaces()
		if err != nil {
			return err
		}
		found := 0
		for _, info := range all {
			switch info.Name {
			case a:
				check(info, infoA)
				found++
			case b:
				check(info, infoB)
				found++
			}
		}
		if found != 2 {
			t.Errorf("Namespaces = %+v, want %s and %s among them", all, a, b)
		}
		return nil
	})

	// PutNamespace replaces.
	infoA.Embedder, infoA.Dimensions = "model-z", 768
	update(t, s, func(tx amem.Tx) error { return tx.PutNamespace(infoA) })
	view(t, s, func(tx amem.Tx) error {
		got, err := tx.Namespace(a)
		if err != nil {
			return err
		}
		check(got, infoA)
		return nil
	})
}

func testIsolation(t *testing.T, s amem.Store) {
	nsA, nsB := newNS("iso-a"), newNS("iso-b")
	a1, a2 := newNote(nsA, "shared words about gardening"), newNote(nsA, "tomatoes in the garden")
	b1 := newNote(nsB, "shared words about gardening")
	for _, n := range []*amem.Note{&a1, &a2, &b1} {
		n.Tags = []string{"common"}
		n.Metadata = map[string]string{"k": "v"}
	}
	insert(t, s, a1, a2, b1)
	putLinks(t, s, nsA, amem.Link{Source: a1.ID, Target: a2.ID, Strength: 0.5, CreatedAt: base})
	update(t, s, func(tx amem.Tx) error {
		if err := tx.AddVersion(version(a1, 1)); err != nil {
			return err
		}
		return usageKeeper(t, tx).RecordUsage(amem.UsageRecord{Namespace: nsA, NoteID: a1.ID, Operation: "embed", Usage: amem.Usage{PromptTokens: 5}, At: base})
	})

	view(t, s, func(tx amem.Tx) error {
		_, err := tx.Note(nsB, a1.ID)
		wantNotFound(t, "Note of another namespace", err)

		notes, err := tx.Notes(nsB, []string{a1.ID, a2.ID, b1.ID})
		if err != nil {
			return err
		}
		if got := noteIDs(notes); !slices.Equal(got, []string{b1.ID}) {
			t.Errorf("Notes(B, all IDs) = %v, want only %s", got, b1.ID)
		}
		if len(notes) == 1 && len(notes[0].Links) != 0 {
			t.Errorf("B's note has links %+v", notes[0].Links)
		}

		list, err := tx.ListNotes(nsB, amem.ListQuery{})
		if err != nil {
			return err
		}
		if got := noteIDs(list); !slices.Equal(got, []string{b1.ID}) {
			t.Errorf("ListNotes(B) = %v, want [%s]", got, b1.ID)
		}

		for _, f := range []amem.Filter{{}, {Tags: []string{"common"}}, {Metadata: map[string]string{"k": "v"}}} {
			ids, err := tx.MatchIDs(nsB, f)
			if err != nil {
				return err
			}
			if !slices.Equal(ids, []string{b1.ID}) {
				t.Errorf("MatchIDs(B, %+v) = %v, want [%s]", f, ids, b1.ID)
			}
		}

		embedded, err := embeddedIDs(tx, nsB)
		if err != nil {
			return err
		}
		if !slices.Equal(embedded, []string{b1.ID}) {
			t.Errorf("Embeddings(B) = %v, want [%s]", embedded, b1.ID)
		}

		vs, err := tx.Versions(nsB, a1.ID)
		if err != nil {
			return err
		}
		if len(vs) != 0 {
			t.Errorf("Versions(B, a1) = %+v, want none", vs)
		}
		usage, err := usageKeeper(t, tx).UsageTotals(nsB)
		if err != nil {
			return err
		}
		if len(usage) != 0 {
			t.Errorf("UsageTotals(B) = %+v, want none", usage)
		}
		st, err := tx.Stats(nsB)
		if err != nil {
			return err
		}
		if st.Notes != 1 || st.Links != 0 {
			t.Errorf("Stats(B) = %+v, want 1 note, 0 links", st)
		}
		return nil
	})

	// Writes through the wrong namespace fail and change nothing.
	for _, tc := range []struct {
		name string
		fn   func(tx amem.Tx) error
	}{
		{"UpdateNote", func(tx amem.Tx) error {
			n := a1
			n.Namespace, n.Content = nsB, "hijacked"
			return tx.UpdateNote(n, a1.Version)
		}},
		{"DeleteNote", func(tx amem.Tx) error { return tx.DeleteNote(nsB, a1.ID) }},
		{"PutLink in B to A's notes", func(tx amem.Tx) error {
			return tx.PutLink(nsB, amem.Link{Source: a1.ID, Target: a2.ID, Strength: 1})
		}},
		{"PutLink from B to A", func(tx amem.Tx) error {
			return tx.PutLink(nsB, amem.Link{Source: b1.ID, Target: a1.ID, Strength: 1})
		}},
		{"PutLink from A to B", func(tx amem.Tx) error {
			return tx.PutLink(nsA, amem.Link{Source: a1.ID, Target: b1.ID, Strength: 1})
		}},
		{"AddVersion", func(tx amem.Tx) error {
			v := version(a1, 2)
			v.Namespace = nsB
			return tx.AddVersion(v)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(t.Context(), tc.fn)
			wantNotFound(t, tc.name, err)
		})
	}
	update(t, s, func(tx amem.Tx) error { return tx.DeleteLinksFrom(nsB, a1.ID) })

	got := getNote(t, s, nsA, a1.ID)
	want := a1
	want.Links = []amem.Link{{Source: a1.ID, Target: a2.ID, Strength: 0.5, CreatedAt: base}}
	checkNote(t, got, want)
	b := getNote(t, s, nsB, b1.ID)
	if len(b.Links) != 0 {
		t.Errorf("B's note has links %+v", b.Links)
	}
	view(t, s, func(tx amem.Tx) error {
		vs, err := tx.Versions(nsA, a1.ID)
		if err != nil {
			return err
		}
		if len(vs) != 1 {
			t.Errorf("a1 has %d versions, want 1", len(vs))
		}
		return nil
	})

	// A Memory's full-text index of B, built from B's change feed, holds
	// only B's note.
	m := memoryOver(t, s)
	for _, f := range []amem.Filter{{}, {Tags: []string{"common"}}, {Metadata: map[string]string{"k": "v"}}} {
		if got := scoredIDs(lexicalIn(t, m, nsB, "gardening tomatoes garden", f, 10)); !slices.Equal(got, []string{b1.ID}) {
			t.Errorf("lexical search of B, %+v = %v, want [%s]", f, got, b1.ID)
		}
	}
}

func testInsertConflict(t *testing.T, s amem.Store) {
	ns := newNS("conflict")
	n := newNote(ns, "first")
	insert(t, s, n)
	for _, tc := range []struct {
		name string
		ns   string
	}{
		{"same namespace", ns},
		{"other namespace", newNS("conflict-other")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dup := newNote(tc.ns, "second")
			dup.ID = n.ID
			err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.InsertNote(dup) })
			if !errors.Is(err, amem.ErrConflict) {
				t.Errorf("insert of an existing ID: err = %v, want amem.ErrConflict", err)
			}
		})
	}
	checkNote(t, getNote(t, s, ns, n.ID), n)
}

func testUpdateNote(t *testing.T, s amem.Store) {
	ns := newNS("update")
	n, other := newNote(ns, "original content"), newNote(ns, "other")
	insert(t, s, n, other)
	link := amem.Link{Source: n.ID, Target: other.ID, Reason: "related", Strength: 0.7, CreatedAt: base}
	putLinks(t, s, ns, link)

	u := n
	u.Content = "rewritten content"
	u.EventTime = base.Add(-24 * time.Hour)
	u.IngestTime = base.Add(time.Minute)
	u.UpdatedAt = base.Add(3 * time.Hour)
	u.Keywords = []string{"new", "words"}
	u.Tags = []string{}
	u.Context = "new context"
	u.Metadata = map[string]string{"source": "import"}
	u.Embedding = []float32{9, 8, 7}
	u.Version = 2
	u.Enrichment = amem.Enrichment{State: amem.EnrichDone, Attempts: 1, At: base.Add(time.Hour)}
	u.Links = nil // UpdateNote leaves links alone
	update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(u, n.Version) })

	want := u
	want.Links = []amem.Link{link}
	checkNote(t, getNote(t, s, ns, n.ID), want)

	t.Run("missing", func(t *testing.T) {
		m := newNote(ns, "never inserted")
		err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.UpdateNote(m, m.Version) })
		wantNotFound(t, "UpdateNote of a missing note", err)
	})
	t.Run("clear embedding", func(t *testing.T) {
		c := want
		c.Embedding, c.Metadata = nil, nil
		update(t, s, func(tx amem.Tx) error { return tx.UpdateNote(c, want.Version) })
		checkNote(t, getNote(t, s, ns, n.ID), c)
	})
}

func testDeleteNote(t *testing.T, s amem.Store) {
	ns := newNS("delete")
	a, b, c := newNote(ns, "alpha note about zebras"), newNote(ns, "bravo"), newNote(ns, "charlie")
	insert(t, s, a, b, c)
	putLinks(t, s, ns,
		amem.Link{Source: a.ID, Target: b.ID, Strength: 0.9, CreatedAt: base},
		amem.Link{Source: c.ID, Target: a.ID, Strength: 0.8, CreatedAt: base},
		amem.Link{Source: b.ID, Target: c.ID, Strength: 0.1, CreatedAt: base},
	)
	update(t, s, func(tx amem.Tx) error {
		for v := 1; v <= 3; v++ {
			if err := tx.AddVersion(version(a, v)); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, s, func(tx amem.Tx) error { return tx.DeleteNote(ns, a.ID) })

	view(t, s, func(tx amem.Tx) error {
		_, err := tx.Note(ns, a.ID)
		wantNotFound(t, "Note after delete", err)
		_, err = tx.FindNote(a.ID)
		wantNotFound(t, "FindNote after delete", err)
		for _, id := range []string{b.ID, c.ID} {
			n, err := tx.Note(ns, id)
			if err != nil {
				return err
			}
			for _, l := range n.Links {
				if l.Source == a.ID || l.Target == a.ID {
					t.Errorf("note %s keeps link %+v to the deleted note", id, l)
				}
			}
			if len(n.Links) != 1 {
				t.Errorf("note %s has %d links, want 1 (b->c)", id, len(n.Links))
			}
		}
		vs, err := tx.Versions(ns, a.ID)
		if err != nil {
			return err
		}
		if len(vs) != 0 {
			t.Errorf("versions survive delete: %+v", vs)
		}
		st, err := tx.Stats(ns)
		if err != nil {
			return err
		}
		if st.Notes != 2 || st.Links != 1 {
			t.Errorf("Stats after delete = %+v, want 2 notes, 1 link", st)
		}
		ids, err := tx.MatchIDs(ns, amem.Filter{})
		if err != nil {
			return err
		}
		if slices.Contains(ids, a.ID) || len(ids) != 2 {
			t.Errorf("a zero filter matched %v, want the 2 notes left", ids)
		}
		embedded, err := embeddedIDs(tx, ns)
		if slices.Contains(embedded, a.ID) {
			t.Errorf("deleted note still has an embedding")
		}
		return err
	})

	t.Run("missing", func(t *testing.T) {
		err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.DeleteNote(ns, a.ID) })
		wantNotFound(t, "DeleteNote of a deleted note", err)
	})
	t.Run("reinsert", func(t *testing.T) {
		insert(t, s, a)
		checkNote(t, getNote(t, s, ns, a.ID), a) // no old links
		view(t, s, func(tx amem.Tx) error {
			vs, err := tx.Versions(ns, a.ID)
			if err == nil && len(vs) != 0 {
				t.Errorf("re-inserted note has old versions %+v", vs)
			}
			return err
		})
	})
}

func testNotesBatch(t *testing.T, s amem.Store) {
	ns := newNS("batch")
	var notes []amem.Note
	for i := 0; i < 5; i++ {
		notes = append(notes, newNote(ns, "batch note"))
	}
	insert(t, s, notes...)
	putLinks(t, s, ns, amem.Link{Source: notes[0].ID, Target: notes[1].ID, Strength: 0.3, CreatedAt: base})

	// Many IDs, most missing, some repeated.
	ids := []string{notes[1].ID, notes[0].ID, notes[1].ID, notes[3].ID}
	for i := 0; i < 2000; i++ {
		ids = append(ids, newID())
	}
	view(t, s, func(tx amem.Tx) error {
		got, err := tx.Notes(ns, ids)
		if err != nil {
			return err
		}
		want := sorted([]string{notes[0].ID, notes[1].ID, notes[3].ID})
		if g := sorted(noteIDs(got)); !slices.Equal(g, want) {
			t.Fatalf("Notes = %v, want %v", g, want)
		}
		for _, n := range got {
			if n.Embedding == nil {
				t.Errorf("note %s has no embedding", n.ID)
			}
			wantLinks := 0
			if n.ID == notes[0].ID || n.ID == notes[1].ID {
				wantLinks = 1
			}
			if len(n.Links) != wantLinks {
				t.Errorf("note %s has links %+v, want %d", n.ID, n.Links, wantLinks)
			}
		}
		bare, err := tx.NotesWithoutEmbeddings(ns, ids)
		if err != nil {
			return err
		}
		if g := sorted(noteIDs(bare)); !slices.Equal(g, want) {
			t.Fatalf("NotesWithoutEmbeddings = %v, want %v", g, want)
		}
		for _, n := range bare {
			if n.Embedding != nil {
				t.Errorf("NotesWithoutEmbeddings: note %s has an embedding", n.ID)
			}
			if n.ID == notes[0].ID && len(n.Links) != 1 {
				t.Errorf("NotesWithoutEmbeddings: note %s has links %+v, want 1", n.ID, n.Links)
			}
		}
		for _, empty := range [][]string{nil, {}} {
			got, err := tx.Notes(ns, empty)
			if err != nil {
				return err
			}
			if len(got) != 0 {
				t.Errorf("Notes(%#v) = %d notes", empty, len(got))
			}
			got, err = tx.NotesWithoutEmbeddings(ns, empty)
			if err != nil {
				return err
			}
			if len(got) != 0 {
				t.Errorf("NotesWithoutEmbeddings(%#v) = %d notes", empty, len(got))
			}
		}
		return nil
	})
}

func testNoteIDsByContent(t *testing.T, s amem.Store) {
	ns, other := newNS("bycontent"), newNS("bycontent-other")
	a, b, c := newNote(ns, "same words"), newNote(ns, "same words"), newNote(ns, "Same words")
	b.EventTime = base.Add(time.Minute)
	d := newNote(ns, "same words and more")
	elsewhere := newNote(other, "same words")
	insert(t, s, a, b, c, d, elsewhere)
	view(t, s, func(tx amem.Tx) error {
		for _, tc := range []struct {
			content string
			at      time.Time
			want    []string
		}{
			{"same words", time.Time{}, sorted([]string{a.ID, b.ID})},
			{"same words", base, []string{a.ID}},
			{"same words", base.UTC(), []string{a.ID}}, // the same instant in another zone
			{"same words", base.Add(time.Minute), []string{b.ID}},
			{"same words", base.Add(time.Nanosecond), []string{}},
			{"Same words", time.Time{}, []string{c.ID}}, // exact, not case-folded
			{"same", time.Time{}, []string{}},
			{"nowhere", base, []string{}},
		} {
			got, err := tx.NoteIDsByContent(ns, tc.content, tc.at)
			if err != nil {
				return err
			}
			if got == nil || !slices.Equal(got, tc.want) {
				t.Errorf("NoteIDsByContent(%q, %v) = %#v, want %v", tc.content, tc.at, got, tc.want)
			}
		}
		return nil
	})
}

func testLinks(t *testing.T, s amem.Store) {
	ns := newNS("links")
	a, b, c, d := newNote(ns, "a"), newNote(ns, "b"), newNote(ns, "c"), newNote(ns, "d")
	insert(t, s, a, b, c, d)
	ab := amem.Link{Source: a.ID, Target: b.ID, Reason: "same topic", Strength: 0.5, CreatedAt: base}
	ca := amem.Link{Source: c.ID, Target: a.ID, Reason: "follows up", Strength: 0.9, CreatedAt: base.Add(time.Second)}
	ad := amem.Link{Source: a.ID, Target: d.ID, Strength: 0.5, CreatedAt: base.Add(time.Minute)}
	bc := amem.Link{Source: b.ID, Target: c.ID, Strength: 0.2, CreatedAt: base}
	putLinks(t, s, ns, ad, ab, ca, bc)

	checkLinks := func(t *testing.T, id string, want ...amem.Link) {
		t.Helper()
		got := getNote(t, s, ns, id).Links
		w := normalize(amem.Note{Links: want}).Links
		g := normalize(amem.Note{Links: got}).Links
		if len(g) != len(w) || (len(w) > 0 && !slices.Equal(g, w)) {
			t.Errorf("links of %s:\n got %+v\nwant %+v", id, g, w)
		}
	}
	// Both directions, strongest first, then oldest first.
	checkLinks(t, a.ID, ca, ab, ad)
	checkLinks(t, b.ID, ab, bc)
	checkLinks(t, d.ID, ad)

	t.Run("replace", func(t *testing.T) {
		ab2 := ab
		ab2.Reason, ab2.Strength, ab2.CreatedAt = "revised", 0.95, base.Add(time.Hour)
		putLinks(t, s, ns, ab2)
		checkLinks(t, a.ID, ab2, ca, ad)
		checkLinks(t, b.ID, ab2, bc)
		ab = ab2
	})
	t.Run("missing end", func(t *testing.T) {
		for _, l := range []amem.Link{
			{Source: a.ID, Target: newID(), Strength: 0.5},
			{Source: newID(), Target: a.ID, Strength: 0.5},
		} {
			err := s.Update(t.Context(), func(tx amem.Tx) error { return tx.PutLink(ns, l) })
			wantNotFound(t, "PutLink to a missing note", err)
		}
	})
	t.Run("missing end keeps the transaction", func(t *testing.T) {
		// Memory skips a link whose target was deleted meanwhile and goes on.
		e := newNote(ns, "e")
		update(t, s, func(tx amem.Tx) error {
			if err := tx.PutLink(ns, amem.Link{Source: a.ID, Target: newID(), Strength: 0.5}); !errors.Is(err, amem.ErrNotFound) {
				t.Errorf("PutLink to a missing note: err = %v", err)
			}
			return tx.InsertNote(e)
		})
		getNote(t, s, ns, e.ID)
	})
	t.Run("DeleteLinksFrom", func(t *testing.T) {
		update(t, s, func(tx amem.Tx) error { return tx.DeleteLinksFrom(ns, a.ID) })
		checkLinks(t, a.ID, ca)
		checkLinks(t, b.ID, bc)
		checkLinks(t, d.ID)
		update(t, s, func(tx amem.Tx) error { return tx.DeleteLinksFrom(ns, newID()) })
	})
	view(t, s, func(tx amem.Tx) error {
		st, err := tx.Stats(ns)
		if err == nil && st.Links != 2 {
			t.Errorf("Stats.Links = %d, want 2", st.Links)
		}
		return err
	})
}

func testListNotes(t *testing.T, s amem.Store) {
	ns := newNS("list")
	states := []amem.EnrichState{amem.EnrichPending, amem.EnrichDone, amem.EnrichFailed}
	var all []string
	byState := map[amem.EnrichState][]string{}
	var notes []amem.Note
	for i := 0; i < 25; i++ {
		n := newNote(ns, "listed")
		n.Enrichment.State = states[i%3]
		notes = append(notes, n)
		all = append(all, n.ID)
		byState[n.Enrichment.State] = append(byState[n.Enrichment.State], n.ID)
	}
	// Insert in reverse so that insertion order isn't ID order.
	slices.Reverse(notes)
	insert(t, s, notes...)
	insert(t, s, newNote(newNS("list-other"), "elsewhere"))
	putLinks(t, s, ns, amem.Link{Source: notes[0].ID, Target: notes[1].ID, Strength: 1, CreatedAt: base})
	all = sorted(all)

	page := func(q amem.ListQuery) []amem.Note {
		t.Helper()
		var out []amem.Note
		view(t, s, func(tx amem.Tx) error {
			var err error
			out, err = tx.ListNotes(ns, q)
			return err
		})
		return out
	}
	walk := func(q amem.ListQuery) []string {
		t.Helper()
		var ids []string
		for i := 0; i < 100; i++ {
			got := page(q)
			if len(got) > q.Limit {
				t.Fatalf("page of %d notes for limit %d", len(got), q.Limit)
			}
			if len(got) == 0 {
				return ids
			}
			ids = append(ids, noteIDs(got)...)
			q.After = got[len(got)-1].ID
		}
		t.Fatal("paging did not end")
		return nil
	}

	t.Run("default limit", func(t *testing.T) {
		got := page(amem.ListQuery{Embeddings: true})
		if ids := noteIDs(got); !slices.Equal(ids, all) {
			t.Errorf("ListNotes = %v, want %v", ids, all)
		}
		for _, n := range got {
			if n.Embedding == nil || n.Links == nil {
				t.Errorf("note %s lacks its embedding or links", n.ID)
			}
			if n.ID == notes[0].ID && len(n.Links) != 1 {
				t.Errorf("note %s has links %+v, want 1", n.ID, n.Links)
			}
		}
	})
	for _, limit := range []int{1, 7, 10, 25, 30} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			if got := walk(amem.ListQuery{Limit: limit}); !slices.Equal(got, all) {
				t.Errorf("limit %d: walked %v, want %v", limit, got, all)
			}
		})
	}
	t.Run("after", func(t *testing.T) {
		got := noteIDs(page(amem.ListQuery{After: all[9], Limit: 3}))
		if !slices.Equal(got, all[10:13]) {
			t.Errorf("after %s: %v, want %v", all[9], got, all[10:13])
		}
		if got := page(amem.ListQuery{After: all[24]}); len(got) != 0 {
			t.Errorf("after the last note: %d notes", len(got))
		}
	})
	for _, st := range states {
		t.Run("state "+string(st), func(t *testing.T) {
			want := sorted(byState[st])
			if got := walk(amem.ListQuery{State: st, Limit: 4}); !slices.Equal(got, want) {
				t.Errorf("state %s: %v, want %v", st, got, want)
			}
		})
	}
}

// version returns version v of n, as Memory would record it.
func version(n amem.Note, v int) amem.Version {
	return amem.Version{
		NoteID:    n.ID,
		Namespace: n.Namespace,
		Version:   v,
		Actor:     amem.ActorUser,
		Reason:    "test",
		Changes:   []amem.FieldChange{{Field: "content", Old: `""`, New: `"x"`}},
		Snapshot: amem.Snapshot{
			Content: n.Content, EventTime: n.EventTime,
			Keywords: n.Keywords, Tags: n.Tags, Context: n.Context, Metadata: n.Metadata,
		},
		CreatedAt: base.Add(time.Duration(v) * time.Minute),
	}
}
