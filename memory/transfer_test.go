package memory_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem/memory"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/mock"
	"github.com/amem-dev/amem/sqlite"
)

// countAll counts every note and every version row of the memory: a
// refused import must leave both as they were.
func countAll(t *testing.T, mem *memory.Memory) (notes, versions int) {
	t.Helper()
	ctx := context.Background()
	infos, err := mem.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		page, err := mem.List(ctx, info.Name, amem.ListQuery{Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range page {
			vs, err := mem.History(ctx, n.Namespace, n.ID)
			if err != nil {
				t.Fatal(err)
			}
			notes, versions = notes+1, versions+len(vs)
		}
	}
	return notes, versions
}

// faultyStore fails the failAt-th InsertNote of its write transactions
// and counts the write transactions.
type faultyStore struct {
	amem.Store
	failAt  int64
	inserts atomic.Int64
	writes  atomic.Int64
}

func (s *faultyStore) Update(ctx context.Context, fn func(amem.Tx) error) error {
	s.writes.Add(1)
	return s.Store.Update(ctx, func(tx amem.Tx) error { return fn(faultyTx{tx, s}) })
}

type faultyTx struct {
	amem.Tx
	s *faultyStore
}

func (tx faultyTx) InsertNote(n amem.Note) error {
	if tx.s.inserts.Add(1) == tx.s.failAt {
		return errors.New("disk on fire")
	}
	return tx.Tx.InsertNote(n)
}

func openFaulty(t *testing.T, failAt int64) (*memory.Memory, *faultyStore) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := &faultyStore{Store: st, failAt: failAt}
	mem, err := memory.Open(context.Background(), fs, &memory.Options{Embedder: lexical.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	return mem, fs
}

func plainLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"content\": \"memory number %d\", \"time\": \"2023-05-08T13:%02d:%02dZ\"}\n", i, i/60, i%60)
	}
	return b.String()
}

// TestImportPlainLinesAllOrNothing: the plain lines of an import go into
// the store in one transaction, so a failure at the 200th of 400 notes
// (or a kill) leaves none of them.
func TestImportPlainLinesAllOrNothing(t *testing.T) {
	ctx := context.Background()
	mem, fs := openFaulty(t, 200)
	if _, err := mem.Import(ctx, strings.NewReader(plainLines(400)), memory.ImportOptions{Namespace: "p"}); err == nil {
		t.Fatal("import through a failing store succeeded")
	}
	if notes, versions := countAll(t, mem); notes != 0 || versions != 0 {
		t.Fatalf("a failed import left %d notes and %d versions", notes, versions)
	}

	mem, fs = openFaulty(t, 0)
	st, err := mem.Import(ctx, strings.NewReader(plainLines(400)), memory.ImportOptions{Namespace: "p"})
	if err != nil || st.Added != 400 {
		t.Fatalf("import: %+v %v", st, err)
	}
	if w := fs.writes.Load(); w != 1 {
		t.Fatalf("400 plain lines took %d write transactions, want 1", w)
	}
	notes, _ := mem.List(ctx, "p", amem.ListQuery{Limit: 1})
	if h, _ := mem.History(ctx, "p", notes[0].ID); len(h) != 1 || h[0].Actor != amem.ActorImport {
		t.Fatalf("an imported plain line's history: %+v", h)
	}
}

// TestImportTwiceAddsNothingTwice: a duplicate is a note of the namespace
// with the same content and event time (same content alone for a line
// without a time), in the store or earlier in the file.
func TestImportTwiceAddsNothingTwice(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	in := strings.Join([]string{
		`{"content": "Caroline went to a support group", "time": "2023-05-08T13:56:00Z"}`,
		`{"content": "Caroline went to a support group", "time": "2023-05-08T15:56:00+02:00"}`, // the same instant: a duplicate
		`{"content": "Caroline went to a support group", "time": "2023-05-09T13:56:00Z"}`,      // another day: a new note
		`{"content": "Caroline went to a support group"}`,                                      // no time: same content, a duplicate
		`{"content": "Melanie painted a sunrise"}`,
		`{"content": "Melanie painted a sunrise"}`,
		`{"content": "Melanie painted a sunrise", "namespace": "other"}`, // another namespace: new
		`{"content": "Melanie painted a sunrise", "event_time": "2023-05-08T13:56:00Z"}`,
	}, "\n")
	st, err := mem.Import(ctx, strings.NewReader(in), memory.ImportOptions{Namespace: "p"})
	if err != nil || st.Added != 5 || st.Duplicates != 3 {
		t.Fatalf("first import: %+v %v; want 5 added, 3 duplicates", st, err)
	}
	notes, versions := countAll(t, mem)
	st, err = mem.Import(ctx, strings.NewReader(in), memory.ImportOptions{Namespace: "p"})
	if err != nil || st.Added != 0 || st.Duplicates != 8 {
		t.Fatalf("second import: %+v %v; want nothing added, 8 duplicates", st, err)
	}
	if n, v := countAll(t, mem); n != notes || v != versions {
		t.Fatalf("the second import changed %d notes, %d versions to %d, %d", notes, versions, n, v)
	}
	// A note added by other means counts too.
	if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "p", Content: "added by hand"}); err != nil {
		t.Fatal(err)
	}
	st, err = mem.Import(ctx, strings.NewReader(`{"content": "added by hand"}`), memory.ImportOptions{Namespace: "p"})
	if err != nil || st.Added != 0 || st.Duplicates != 1 {
		t.Fatalf("import of a note added before: %+v %v", st, err)
	}
}

// TestImportReportsEveryBadLine: every bad line is named with its number
// (the first 20, then a count), and nothing is stored.
func TestImportReportsEveryBadLine(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	if _, err := mem.Add(ctx, amem.AddRequest{Namespace: "p", Content: "already here"}); err != nil {
		t.Fatal(err)
	}
	notes, versions := countAll(t, mem)
	good := `{"content": "fine"}`
	lines := []string{good, good + " ", `{"content": 5}`, good, "not json", good, `{"content": "x", "time": "0001-01-01T00:00:00Z"}`}
	_, err := mem.Import(ctx, strings.NewReader(strings.Join(lines, "\n")), memory.ImportOptions{Namespace: "p"})
	var ie *memory.ImportError
	if !errors.As(err, &ie) || !errors.Is(err, amem.ErrInvalid) {
		t.Fatalf("err = %v, want an ImportError that is ErrInvalid", err)
	}
	if ie.Total != 3 || len(ie.Lines) != 3 || ie.Lines[0].Line != 3 || ie.Lines[1].Line != 5 || ie.Lines[2].Line != 7 {
		t.Fatalf("bad lines %+v (total %d), want 3, 5 and 7", ie.Lines, ie.Total)
	}
	for _, want := range []string{
		"3 bad lines, nothing was imported",
		`line 3: field "content": must be a string, not a number`,
		"line 5: the line is not valid JSON at byte 2",
		"line 7: time 0001-01-01T00:00:00Z is the zero time",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	checkNoGoText(t, err.Error())

	many := strings.Repeat("{\"content\": \"\"}\n", 25)
	_, err = mem.Import(ctx, strings.NewReader(many), memory.ImportOptions{Namespace: "p"})
	if !errors.As(err, &ie) || ie.Total != 25 || len(ie.Lines) != 20 || !strings.HasSuffix(err.Error(), "line 20: content is empty\n  and 5 more") {
		t.Fatalf("25 bad lines: %v", err)
	}
	if n, v := countAll(t, mem); n != notes || v != versions {
		t.Fatalf("refused imports changed %d notes, %d versions to %d, %d", notes, versions, n, v)
	}
}

// TestImportRefusesTextItWouldRewrite: invalid UTF-8, lone surrogate
// escapes and times a note can't hold are bad lines, never stored as
// U+FFFD or as now.
func TestImportRefusesTextItWouldRewrite(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	for line, want := range map[string]string{
		"{\"content\": \"caf\xe9\"}":                                                             "the line is not valid UTF-8 at byte 17",
		`{"content": "half \ud800 a pair"}`:                                                      `\ud800 at byte 19, half of a UTF-16 surrogate pair`,
		`{"content": "x", "time": "0001-01-01T00:00:00Z"}`:                                       "zero time",
		`{"content": "x", "event_time": "0001-01-01T00:00:00Z"}`:                                 "zero time",
		`{"content": "x", "time": "1492-10-12T00:00:00Z"}`:                                       "1678-01-01T00:00:00Z to 2261-12-31T23:59:59Z",
		`{"content": "x", "time": "yesterday"}`:                                                  `field "time": must be an RFC 3339 time such as 2024-05-01T10:00:00Z, not "yesterday"`,
		`{"content": "x", "time": "2023-05-08T13:56:00Z", "event_time": "2023-05-08T13:56:00Z"}`: "both time and event_time",
		`[{"content": "x"}]`:                                                                     "the line must be a JSON object, not a list",
		`{"content": "x", "y": 1}`:                                                               `unknown field "y"`,
	} {
		_, err := mem.Import(ctx, strings.NewReader(line), memory.ImportOptions{Namespace: "p"})
		if !errors.Is(err, amem.ErrInvalid) || !strings.Contains(err.Error(), "line 1: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("import %q: %v, want line 1 reported: %q", line, err, want)
		}
		checkNoGoText(t, fmt.Sprint(err))
	}
	if n, v := countAll(t, mem); n != 0 || v != 0 {
		t.Fatalf("refused lines stored %d notes, %d versions", n, v)
	}
}

// TestImportAcceptsAByteOrderMark: editors on Windows start UTF-8 files
// with one.
func TestImportAcceptsAByteOrderMark(t *testing.T) {
	ctx := context.Background()
	mem := openMem(t, nil)
	st, err := mem.Import(ctx, strings.NewReader("\xEF\xBB\xBF{\"content\": \"with a BOM\", \"time\": \"2023-05-08T13:56:00Z\"}\n"), memory.ImportOptions{Namespace: "p"})
	if err != nil || st.Added != 1 {
		t.Fatalf("import with a BOM: %+v %v", st, err)
	}
	notes, _ := mem.List(ctx, "p", amem.ListQuery{})
	if notes[0].Content != "with a BOM" || !notes[0].EventTime.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) {
		t.Fatalf("stored %+v", notes[0])
	}
	// Only at the start of the file.
	if _, err := mem.Import(ctx, strings.NewReader("{\"content\": \"a\"}\n\xEF\xBB\xBF{\"content\": \"b\"}\n"), memory.ImportOptions{Namespace: "p"}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a BOM on line 2: %v, want line 2 refused", err)
	}
}

// checkNoGoText fails if a message meant for a person speaks Go.
func checkNoGoText(t *testing.T, msg string) {
	t.Helper()
	for _, goish := range []string{".go", "main.", "amem.", "UnmarshalJSON", "json: ", "importLine", "jsonin"} {
		if strings.Contains(msg, goish) {
			t.Errorf("message %q shows Go internals (%q)", msg, goish)
		}
	}
}

// TestImportReembedsAndRecordsEvents: records another embedder made are
// embedded again with the memory's (the text it embeds for each note),
// and every note an import stores, restored or added, is a created event
// in the import's write.
func TestImportReembedsAndRecordsEvents(t *testing.T) {
	ctx := context.Background()
	src := openMem(t, nil)
	mustAdd(t, src, "ns", "exported under the lexical embedder")
	mustAdd(t, src, "ns", "and a second note beside it")
	var exported strings.Builder
	if _, err := src.Export(ctx, &exported, "ns"); err != nil {
		t.Fatal(err)
	}

	st := storeWithWebhook(t, "ns", amem.EventCreated)
	vec := func(text string) []float32 { return []float32{float32(len(text)), 1, 0} }
	emb := &mock.Embedder{ModelName: "other", Dims: 3, EmbedFunc: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = vec(s)
		}
		return out, nil
	}}
	dst, err := memory.Open(ctx, st, &memory.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	lines := exported.String() + `{"content": "a plain line beside them"}` + "\n"
	stats, err := dst.Import(ctx, strings.NewReader(lines), memory.ImportOptions{Namespace: "ns"})
	if err != nil || stats.Restored != 2 || stats.Added != 1 || stats.Reembedded != 2 {
		t.Fatalf("import: %+v %v; want 2 restored and re-embedded, 1 added", stats, err)
	}
	notes, err := dst.List(ctx, "ns", amem.ListQuery{})
	if err != nil || len(notes) != 3 {
		t.Fatalf("list: %d notes, %v", len(notes), err)
	}
	for _, n := range notes {
		got, err := dst.Get(ctx, "ns", n.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := vec(memory.EmbedTextPaper(got)); !slices.Equal(got.Embedding, want) {
			t.Errorf("note %q has vector %v, want %v (the memory's embedder on its text)", got.Content, got.Embedding, want)
		}
	}
	hs, err := st.Webhooks(ctx, "ns")
	if err != nil || len(hs) != 1 || hs[0].Pending != 3 {
		t.Fatalf("webhooks %+v, %v; want three created events pending", hs, err)
	}
}
