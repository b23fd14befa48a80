package sqlstore

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/amem-dev/amem"
)

// fakeRows yields rows of values, each scanned into pointers of the
// matching types.
type fakeRows struct {
	rows [][]any
	i    int
	err  error // returned by Err after the last row
}

func (r *fakeRows) Next() bool { r.i++; return r.i <= len(r.rows) }
func (r *fakeRows) Err() error { return r.err }
func (r *fakeRows) Scan(dest ...any) error {
	for j, d := range dest {
		switch d := d.(type) {
		case *string:
			*d = r.rows[r.i-1][j].(string)
		case *int64:
			*d = r.rows[r.i-1][j].(int64)
		case *[]byte:
			*d = r.rows[r.i-1][j].([]byte)
		default:
			return errors.New("unexpected destination")
		}
	}
	return nil
}

func TestChangesMerge(t *testing.T) {
	rows := &fakeRows{rows: [][]any{{int64(2), "b"}, {int64(4), "d"}, {int64(5), "e"}}}
	dead := []amem.Change{{Seq: 1, ID: "a", Deleted: true}, {Seq: 4, ID: "x", Deleted: true}, {Seq: 7, ID: "g", Deleted: true}}
	scan := func(vec []float32) (int64, amem.Note, error) {
		var (
			seq int64
			n   amem.Note
		)
		err := rows.Scan(&seq, &n.ID)
		return seq, n, err
	}
	var got []string
	err := Changes(t.Context(), "ns", rows, dead, scan, func(c amem.Change) error {
		s := c.ID
		if c.Deleted {
			s = "-" + s
		}
		got = append(got, s)
		return nil
	})
	// A tombstone goes before a note of the same number (one
	// transaction), as both stores have always given them.
	if want := []string{"-a", "b", "-x", "d", "e", "-g"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Changes: %q, %v; want %q", got, err, want)
	}

	stop := errors.New("stop")
	rows = &fakeRows{rows: [][]any{{int64(2), "b"}}}
	n := 0
	err = Changes(t.Context(), "ns", rows, dead, scan, func(amem.Change) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("an error from fn: %v after %d calls; want it as is, after 1", err, n)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rows = &fakeRows{rows: [][]any{{int64(2), "b"}}}
	if err := Changes(ctx, "ns", rows, nil, scan, func(amem.Change) error { return nil }); err != context.Canceled {
		t.Errorf("a canceled context: %v", err)
	}

	failed := errors.New("connection lost")
	rows = &fakeRows{err: failed}
	if err := Changes(t.Context(), "ns", rows, nil, scan, func(amem.Change) error { return nil }); !errors.Is(err, failed) {
		t.Errorf("a failed read: %v", err)
	}
}

func TestEmbeddings(t *testing.T) {
	rows := &fakeRows{rows: [][]any{
		{"a", EncodeVector([]float32{1, 2})}, {"b", []byte(nil)}, {"c", EncodeVector([]float32{3, 4})},
	}}
	var got []string
	var bufs [][]float32
	err := Embeddings[[]byte](t.Context(), rows, func(id string, vec []float32) error {
		got = append(got, id)
		bufs = append(bufs, vec)
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("Embeddings: %q, %v; want a and c (b has no vector)", got, err)
	}
	if &bufs[0][0] != &bufs[1][0] || !slices.Equal(bufs[1], []float32{3, 4}) {
		t.Errorf("vectors %v: want one buffer reused, last [3 4]", bufs)
	}

	rows = &fakeRows{rows: [][]any{{"a", []byte{1, 2, 3}}}}
	if err := Embeddings[[]byte](t.Context(), rows, func(string, []float32) error { return nil }); err == nil {
		t.Error("a 3-byte embedding decoded without error")
	}
}

func TestDueOrder(t *testing.T) {
	got := DueOrder([]Due{
		{Ref: amem.NoteRef{Namespace: "n", ID: "c"}, At: 2},
		{Ref: amem.NoteRef{Namespace: "n", ID: "b"}, At: 1},
		{Ref: amem.NoteRef{Namespace: "m", ID: "a"}, At: 2},
	})
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"b", "a", "c"}) {
		t.Errorf("DueOrder: %q; want oldest due first, then by ID", ids)
	}
}
