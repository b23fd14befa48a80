package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// exportedNote is what the tests read back of an imported note.
type exportedNote struct {
	Namespace string            `json:"namespace"`
	Content   string            `json:"content"`
	EventTime time.Time         `json:"event_time"`
	Tags      []string          `json:"tags"`
	Metadata  map[string]string `json:"metadata"`
}

// exportNotes reads every note of db back through amem export, in
// namespace then content order.
func exportNotes(t *testing.T, db string) []exportedNote {
	t.Helper()
	var notes []exportedNote
	sc := bufio.NewScanner(strings.NewReader(mustCLI(t, "", "export", "--db", db)))
	for sc.Scan() {
		var n exportedNote
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			t.Fatal(err)
		}
		notes = append(notes, n)
	}
	slices.SortFunc(notes, func(a, b exportedNote) int {
		return strings.Compare(a.Namespace+"\x00"+a.Content, b.Namespace+"\x00"+b.Content)
	})
	return notes
}

func testdata(name string) string { return filepath.Join("testdata", "import", name) }

// importStats runs amem import --json with args and returns its counts.
func importStats(t *testing.T, db string, args ...string) memory.ImportStats {
	t.Helper()
	var st memory.ImportStats
	out := mustCLI(t, "", append([]string{"import", "--db", db, "--curator", "none", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("import --json: %v\n%s", err, out)
	}
	return st
}

// TestImportMem0EveryContainer: the same five memories, as a
// {"results": [...]} answer, a JSON array and JSON lines, become the same
// notes: namespaces from user, agent and run IDs, created_at as the
// time, categories as tags, Mem0's metadata and IDs kept. A second import
// of the same file adds nothing.
func TestImportMem0EveryContainer(t *testing.T) {
	var first []exportedNote
	for _, file := range []string{"mem0-results.json", "mem0-array.json", "mem0-lines.jsonl"} {
		db := filepath.Join(t.TempDir(), "a.db")
		if st := importStats(t, db, "--from", "mem0", testdata(file)); st.Added != 5 || st.Duplicates != 0 {
			t.Fatalf("%s: %+v; want 5 added", file, st)
		}
		if st := importStats(t, db, "--from", "mem0", "-f", testdata(file)); st.Added != 0 || st.Duplicates != 5 {
			t.Fatalf("%s again: %+v; want 5 duplicates and nothing added", file, st)
		}
		notes := exportNotes(t, db)
		if first == nil {
			first = notes
			continue
		}
		for i := range notes {
			if notes[i].Namespace == "default" { // no time: the time of the import
				notes[i].EventTime = first[i].EventTime
			}
		}
		if fmt.Sprint(notes) != fmt.Sprint(first) {
			t.Fatalf("%s gave other notes than mem0-results.json:\n%v\nwant\n%v", file, notes, first)
		}
	}
	var got []string
	for _, n := range first {
		got = append(got, n.Namespace+": "+n.Content)
	}
	want := []string{
		"Bob_Smith_Work: Session notes: booked two tickets", // user_id "Bob Smith/Work" made a namespace
		"alice: Prefers thriller movies over comedies",
		"alice: User is planning to watch a movie tonight",
		"default: Nobody owns this memory",
		"movie-bot: Recommends checking showtimes before leaving", // no user: the agent
	}
	if !slices.Equal(got, want) {
		t.Fatalf("notes %q\nwant %q", got, want)
	}
	movie := first[2]
	if !movie.EventTime.Equal(time.Date(2024, 7, 20, 8, 30, 36, 275141000, time.UTC)) {
		t.Errorf("created_at 2024-07-20T01:30:36.275141-07:00 became %v", movie.EventTime)
	}
	wantMD := map[string]string{"source": "chat", "turn": "3", "confirmed": "true", "mem0_id": "892db2ae-06d9-49e5-8b3e-585ef9b85b8e",
		"mem0_hash": "1a271c007316c94377175ee80e746a19", "mem0_user_id": "alice", "mem0_updated_at": "2024-07-20T01:31:02.102003-07:00"}
	if fmt.Sprint(movie.Metadata) != fmt.Sprint(wantMD) {
		t.Errorf("metadata %v\nwant %v", movie.Metadata, wantMD)
	}
	if prefers := first[1]; !slices.Equal(prefers.Tags, []string{"entertainment", "preferences"}) || prefers.Metadata["mem0_agent_id"] != "movie-bot" {
		t.Errorf("categories and agent: %+v", prefers)
	}
	if naive := first[4]; !naive.EventTime.Equal(time.Date(2024, 7, 21, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("created_at without an offset (UTC) became %v", naive.EventTime)
	}
	if bob := first[0]; bob.Metadata["mem0_user_id"] != "Bob Smith/Work" || bob.Metadata["mem0_run_id"] != "run-42" {
		t.Errorf("the IDs as Mem0 had them: %v", bob.Metadata)
	}
}

// TestImportMem0NamespaceFlag: --namespace puts every memory in it.
func TestImportMem0NamespaceFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	importStats(t, db, "--from", "mem0", "--namespace", "all", testdata("mem0-array.json"))
	for _, n := range exportNotes(t, db) {
		if n.Namespace != "all" {
			t.Fatalf("note %q in namespace %s, want all", n.Content, n.Namespace)
		}
	}
}

// TestImportMarkdown: a Markdown file is a note per paragraph by default,
// with its markers stripped and its code block whole; --split line is a
// note per line. Either way a second import adds nothing.
func TestImportMarkdown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	if st := importStats(t, db, "--namespace", "trip", "--from", "text", testdata("notes.md")); st.Added != 4 {
		t.Fatalf("paragraphs: %+v, want 4 added", st)
	}
	var got []string
	for _, n := range exportNotes(t, db) {
		got = append(got, n.Metadata["source"]+":"+n.Metadata["source_line"]+" ["+n.Metadata["section"]+"] "+n.Content)
	}
	// A heading opens its section's first paragraph; every paragraph of
	// the section records it.
	want := []string{
		"notes.md:13 [Food] Caroline said the view from the\ncastle was the best of the trip.",
		"notes.md:6 [Food] Food\nPastéis de nata at Manteigaria, **twice** a day\nGrilled sardines near the river\nA [tram 28](https://example.com/28) ride\nSent postcards home",
		"notes.md:1 [Trip to Lisbon] Trip to Lisbon\nWe flew to Lisbon on 3 May 2024 and stayed\nin Alfama for a week.",
		"notes.md:18 [Food] ```\nplan:\n\n  day 1 -> castle\n```",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paragraph notes:\n%q\nwant\n%q", got, want)
	}
	if st := importStats(t, db, "--namespace", "trip", "--from", "text", testdata("notes.md")); st.Added != 0 || st.Duplicates != 4 {
		t.Fatalf("again: %+v", st)
	}

	db = filepath.Join(t.TempDir(), "b.db")
	if st := importStats(t, db, "--from", "text", "--split", "line", testdata("notes.md")); st.Added != 12 {
		t.Fatalf("lines: %+v, want 12 (fence lines dropped)", st)
	}
	// stdin is a note per line by default.
	out := mustCLI(t, "- Buy milk\n\n  * Call Caroline  \n", "import", "--db", db, "--from", "text", "--namespace", "todo", "--curator", "none")
	if !strings.Contains(out, "added 2 new notes") {
		t.Fatalf("stdin: %s", out)
	}
	if got := mustCLI(t, "", "list", "--db", db, "--namespace", "todo"); !strings.Contains(got, "Buy milk") || !strings.Contains(got, "Call Caroline\n") {
		t.Fatalf("stdin notes:\n%s", got)
	}
}

// TestImportBadInputChangesNothing: every bad record is named by its line
// or record number, and nothing is stored.
func TestImportBadInputChangesNothing(t *testing.T) {
	long := strings.Repeat("word ", memory.DefaultMaxContentBytes/5+1)
	cases := []struct {
		name, from, file, body string
		want                   []string
	}{
		{"mem0 lines", "mem0", "m.jsonl", strings.Join([]string{
			`{"id": "ok", "memory": "fine", "user_id": "u"}`,
			`{"id": "broken", "memory": "no end`,
			`{"id": "m3", "user_id": "u"}`,
			`{"id": "m4", "memory": "nul \u0000 here", "user_id": "u"}`,
			`{"id": "m5", "memory": "` + long + `", "user_id": "u"}`,
			`{"id": "m6", "memory": "when?", "created_at": "last Tuesday"}`,
			`["not", "an", "object"]`,
			`{"id": "m8", "memory": "   "}`,
		}, "\n"), []string{
			"7 bad lines, nothing was imported",
			"line 2: not JSON:",
			`line 3 (id m3): no "memory" text`,
			"line 4 (id m4): content holds a NUL character",
			"line 5 (id m5): content is 32770 bytes, the limit is 32768",
			`line 6 (id m6): created_at: "last Tuesday" is not a time`,
			"line 7: not a JSON object",
			"line 8 (id m8): content is empty",
		}},
		{"mem0 array", "mem0", "m.json", `[{"memory": "fine"},` + "\n" + ` {"memory": 3}, {"memory": "ok", "created_at": "2024-13-01T00:00:00Z"}]`, []string{
			"2 bad records", "record 2: not a Mem0 memory", "record 3: created_at:",
		}},
		{"mem0 broken JSON", "mem0", "m.json", "[\n  {\"memory\": \"fine\"},\n  {\"memory\" \"x\"}\n]", []string{
			"the file is not JSON", "line 3, column 14",
		}},
		{"mem0 results not a list", "mem0", "m.json", `{"results": {"memory": "x"}}`, []string{`"results" is not a list of memories`}},
		{"text", "text", "t.txt", "fine\nnul \x00 here\n" + long + "\nbad \xff utf-8\n", []string{
			"3 bad lines", "line 2: content holds a NUL", "line 3: content is 32769 bytes", "line 4: the text is not valid UTF-8",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db, file := filepath.Join(dir, "a.db"), filepath.Join(dir, c.file)
			if err := os.WriteFile(file, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			mustCLI(t, "", "add", "--db", db, "--curator", "none", "--namespace", "u", "already here")
			_, _, err := amemCLI(t, "", "import", "--db", db, "--curator", "none", "--from", c.from, file)
			if err == nil || !errors.Is(err, amem.ErrInvalid) {
				t.Fatalf("import: %v; want an invalid-input error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
			if n := exportNotes(t, db); len(n) != 1 {
				t.Fatalf("a refused import left %d notes, want the 1 added before", len(n))
			}
		})
	}
}

// TestImportLongTextInBatches: a long file is stored in batches (of
// amem.MaxBatch; 40 here, for speed) with progress on stderr, as whole
// lines when stderr is not a terminal; a dry run writes nothing, and a
// second import adds nothing.
func TestImportLongTextInBatches(t *testing.T) {
	defer func(b int) { importBatch = b }(importBatch)
	importBatch = 40
	dir := t.TempDir()
	db, file := filepath.Join(dir, "a.db"), filepath.Join(dir, "facts.txt")
	const n = 90
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "fact number %d\n", i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := amemCLI(t, "", "import", "--db", db, "--curator", "none", "--from", "text", "--dry-run", file)
	if err != nil || !strings.Contains(out, "dry run, nothing written: would have restored 0 notes and 0 links, added 90 new notes") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if len(exportNotes(t, db)) != 0 {
		t.Fatal("a dry run stored notes")
	}
	out, stderr, err := amemCLI(t, "", "import", "--db", db, "--curator", "none", "--from", "text", file)
	if err != nil || !strings.Contains(out, "added 90 new notes") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if strings.Contains(stderr, "\r") || len(lines) != 3 || !strings.HasPrefix(lines[0], "importing notes: 40/90 (44%), ") ||
		!strings.HasPrefix(lines[1], "importing notes: 80/90 (88%), ") || !strings.HasPrefix(lines[2], "importing notes: 90/90 (100%), done in ") {
		t.Fatalf("progress on stderr:\n%s", stderr)
	}
	if st := importStats(t, db, "--from", "text", file); st.Added != 0 || st.Duplicates != n {
		t.Fatalf("again: %+v", st)
	}
}

func TestImportFlagMistakes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	for _, args := range [][]string{
		{"--from", "csv"},
		{"--from", "mem0", "--split", "line"},
		{"--from", "text", "--split", "sentence"},
		{"--from", "text", "-f", "a.txt", "b.txt"},
	} {
		_, _, err := amemCLI(t, "", append([]string{"import", "--db", db}, args...)...)
		if ue := (usageError{}); !errors.As(err, &ue) {
			t.Errorf("import %q: %v; want a usage error", args, err)
		}
	}
}
