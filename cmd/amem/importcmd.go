package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// The formats import reads.
const (
	fromAmem = "amem"
	fromMem0 = "mem0"
	fromText = "text"
)

func (a *app) importCmd() *cobra.Command {
	var file, from, split string
	var dryRun bool
	c := &cobra.Command{
		Use:   "import [FILE]",
		Short: "import notes: amem's own export, a Mem0 export (--from mem0) or a text or Markdown file (--from text)",
		Long: `import reads FILE (or --file, or stdin) in the format --from names.

--from amem (the default) reads JSON lines. A line with an "id" is an
exported note and is restored with its links, history and times; other lines
are new memories: {"content": "...", "time": "RFC 3339", "namespace", "keywords",
"tags", "metadata"} (all but content optional; --namespace is the default
namespace). Every line is checked before anything is written, and every bad
line is reported; then the whole file is stored in one transaction, or
nothing is.

--from mem0 reads memories exported from Mem0 (get_all's output): a JSON
array of memories, {"results": [...]}, or JSON lines. Each memory's
"memory" text is a note; its created_at (ISO 8601, with or without
microseconds and offset; no offset is UTC; no created_at is the time of the
import) is the note's time; its categories are tags; its metadata is kept
(values that are not strings as JSON text), with mem0_id, mem0_hash,
mem0_user_id, mem0_agent_id, mem0_run_id, mem0_app_id and mem0_updated_at
beside it. The namespace is --namespace when given; else the memory's
user_id, else its agent_id, else its run_id, with every character a
namespace can't hold (letters, digits and . _ - : @) made "_"; else
"default".

--from text reads a text or Markdown file: one note per line (--split line,
the default for stdin and files not named .md or .markdown) or per paragraph
(--split paragraph, the default for .md and .markdown: lines between blank
lines, joined by newlines). Blank lines are skipped. Markdown that marks a
line's role is stripped: heading hashes, "> " quotes, list markers (- * + 1.
1)), task boxes ([ ] [x]); a thematic break (---) is dropped; emphasis, links
and code stay; in paragraph mode a fenced code block stays whole, as written
(in line mode its fence lines are dropped). Each note keeps source=FILE (its
base name) and source_line=N.

Mem0 and text imports check every record before anything is written, and
list the bad ones by line or record number (invalid JSON, no memory text, a
bad time, NUL characters, text over the size limit...); then they write in
batches of ` + strconv.Itoa(amem.MaxBatch) + ` notes, one transaction each, with progress on stderr.
Should the store fail part way, the batches written stay: run the same
import again to add the rest.

In every format a new note the namespace holds already (same content and
time; same content, for a note without a time) is skipped, so importing a
file twice adds nothing twice. New notes are enriched after.`,
		Example: `  amem import < memory.jsonl
  amem import --from mem0 mem0-export.json
  amem import --from mem0 --namespace alice memories.jsonl
  amem import --from text --namespace notes journal.md
  amem import --from text --split paragraph --dry-run notes.txt`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if file != "" {
					return usagef("give the file as an argument or with --file, not both")
				}
				file = args[0]
			}
			if file == "-" {
				file = ""
			}
			switch from {
			case fromAmem, fromMem0:
				if split != "" {
					return usagef("--split is for --from text")
				}
			case fromText:
				if split == "" {
					split = defaultSplit(file)
				}
				if split != splitLine && split != splitParagraph {
					return usagef("--split %q: use line or paragraph", split)
				}
			default:
				return usagef("--from %q: use amem, mem0 or text", from)
			}
			// Mem0 and text imports add new notes, which the curator
			// enriches; an amem export is mostly restored as it was, with
			// no model call, so it is not stopped for a model it may not
			// need.
			if from != fromAmem && !dryRun {
				if err := a.checkLLM(false, nil); err != nil {
					return err
				}
			}
			r, err := a.openInput(file)
			if err != nil {
				return err
			}
			defer r.Close()
			return a.withNewMemory(func(mem *memory.Memory) error {
				var st memory.ImportStats
				var err error
				if from == fromAmem {
					st, err = mem.Import(a.ctx, r, memory.ImportOptions{Namespace: a.ns(), DryRun: dryRun})
				} else {
					st, err = a.importConverted(mem, r, from, split, file, dryRun)
				}
				if err != nil {
					return err
				}
				return a.printImportStats(st, dryRun)
			})
		},
	}
	f := c.Flags()
	f.StringVarP(&file, "file", "f", "", "read this file instead of stdin (or give it as the argument)")
	f.StringVar(&from, "from", fromAmem, "input format: amem (amem export or plain JSON lines), mem0 (a Mem0 export) or text (a text or Markdown file)")
	f.StringVar(&split, "split", "", "--from text: one note per line or paragraph (default paragraph for .md and .markdown, else line)")
	f.BoolVar(&dryRun, "dry-run", false, "check everything and say what would be imported; write nothing")
	return c
}

// openInput opens the file to import, stdin for "".
func (a *app) openInput(file string) (io.ReadCloser, error) {
	if file == "" {
		return io.NopCloser(a.stdin), nil
	}
	return os.Open(file)
}

// importConverted imports a Mem0 export or a text file: it makes every
// record a plain import line, checks them all in a dry run, then imports
// them in batches.
func (a *app) importConverted(mem *memory.Memory, r io.Reader, from, split, file string, dryRun bool) (memory.ImportStats, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return memory.ImportStats{}, fmt.Errorf("read import: %w", err)
	}
	var pieces []piece
	bad := &badInput{unit: "line"}
	if from == fromMem0 {
		pieces, bad, err = mem0Pieces(data, a.namespace, a.ns())
		if err != nil {
			return memory.ImportStats{}, err
		}
	} else {
		pieces = textPieces(data, split, file, a.ns(), bad)
	}
	st, err := a.checkPieces(mem, pieces, bad)
	if err != nil || dryRun {
		return st, err
	}
	return a.importBatches(mem, pieces)
}

// textPieces makes each piece of the text a plain import line. Text
// that is not UTF-8 goes to bad: the JSON encoder would turn it into
// U+FFFD, and a note must be stored as written or not at all.
func textPieces(data []byte, split, file, ns string, bad *badInput) []piece {
	var out []piece
	for _, tp := range splitText(data, split) {
		if !utf8.ValidString(tp.text) {
			bad.add(tp.line, "", errors.New("the text is not valid UTF-8"))
			continue
		}
		md := map[string]string{"source_line": strconv.Itoa(tp.line)}
		if file != "" {
			md["source"] = filepath.Base(file)
		}
		if tp.section != "" {
			md["section"] = tp.section
		}
		out = append(out, piece{pos: tp.line, line: plainImport{Content: tp.text, Namespace: ns, Metadata: md}})
	}
	return out
}

// plainImport is a plain line of amem's import format (see
// memory.Memory.Import): the shape other formats are made into.
type plainImport struct {
	Content   string            `json:"content"`
	Time      string            `json:"time,omitempty"`
	Namespace string            `json:"namespace"`
	Tags      []string          `json:"tags,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
}

// piece is one note to import and where it came from.
type piece struct {
	pos  int    // its line or record number in the input
	ref  string // the record's own ID, if it has one
	line plainImport
}

// encodePieces is the pieces as import lines, one a piece, in order.
func encodePieces(pieces []piece) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, p := range pieces {
		if err := enc.Encode(p.line); err != nil {
			return nil, fmt.Errorf("%s: %w", posName("record", p.pos, p.ref), err)
		}
	}
	return b.Bytes(), nil
}

// checkPieces runs the import as a dry run, so that the memory's own
// checks (content size, NUL, UTF-8, times, tags, metadata) find every bad
// piece before anything is written. Their errors join bad's, named by the
// pieces' positions in the input.
func (a *app) checkPieces(mem *memory.Memory, pieces []piece, bad *badInput) (memory.ImportStats, error) {
	lines, err := encodePieces(pieces)
	if err != nil {
		return memory.ImportStats{}, err
	}
	st, err := mem.Import(a.ctx, bytes.NewReader(lines), memory.ImportOptions{Namespace: a.ns(), DryRun: true})
	var ie *memory.ImportError
	switch {
	case errors.As(err, &ie):
		for _, l := range ie.Lines {
			if i := l.Line - 1; i >= 0 && i < len(pieces) {
				bad.add(pieces[i].pos, pieces[i].ref, l.Err)
			}
		}
		bad.unlisted += ie.Total - len(ie.Lines)
	case err != nil:
		return st, err
	}
	if bad.total() > 0 {
		return memory.ImportStats{}, bad
	}
	return st, nil
}

// importBatch is how many notes of a Mem0 or text import go in one
// transaction: as many as AddBatch takes. Tests make it smaller.
var importBatch = amem.MaxBatch

// importBatches imports pieces checked already, importBatch at a time,
// one transaction each, reporting progress when there is more than one
// batch.
func (a *app) importBatches(mem *memory.Memory, pieces []piece) (memory.ImportStats, error) {
	var total memory.ImportStats
	bar := a.newBar("importing notes", len(pieces), importBatch)
	defer bar.Stop()
	for batch := range slices.Chunk(pieces, importBatch) {
		lines, err := encodePieces(batch)
		if err != nil {
			return total, err
		}
		st, err := mem.Import(a.ctx, bytes.NewReader(lines), memory.ImportOptions{Namespace: a.ns()})
		if err != nil {
			return total, fmt.Errorf("after %s stored: %w", count(total.Added, "new note"), err)
		}
		total.Added += st.Added
		total.Duplicates += st.Duplicates
		bar.Add(len(batch))
	}
	bar.Done()
	return total, nil
}

func (a *app) printImportStats(st memory.ImportStats, dryRun bool) error {
	if a.jsonOut {
		return a.printJSON(st)
	}
	if dryRun {
		fmt.Fprint(a.stdout, "dry run, nothing written: would have ")
	}
	fmt.Fprintf(a.stdout, "restored %s and %s, added %s, %d already present",
		count(st.Restored, "note"), count(st.Links, "link"), count(st.Added, "new note"), st.Unchanged)
	if st.Duplicates > 0 {
		fmt.Fprintf(a.stdout, ", %s skipped", count(st.Duplicates, "duplicate line"))
	}
	if st.Reembedded > 0 {
		fmt.Fprintf(a.stdout, ", re-embedded %d (made by another embedder)", st.Reembedded)
	}
	fmt.Fprintln(a.stdout)
	return nil
}

// badInput is a Mem0 or text import's answer to bad records: nothing was
// written. It lists them by their line or record number in the input.
type badInput struct {
	unit     string // what positions count: "line" or "record"
	items    []badItem
	unlisted int // bad records the memory's check counted but did not list
}

type badItem struct {
	pos int
	ref string
	err error
}

// maxBadListed bounds the bad records an error lists.
const maxBadListed = 20

func (b *badInput) add(pos int, ref string, err error) {
	b.items = append(b.items, badItem{pos, ref, err})
}

func (b *badInput) total() int { return len(b.items) + b.unlisted }

func (b *badInput) Error() string {
	items := slices.SortedFunc(slices.Values(b.items), func(x, y badItem) int { return x.pos - y.pos })
	var s strings.Builder
	fmt.Fprintf(&s, "%v: %s, nothing was imported:", amem.ErrInvalid, count(b.total(), "bad "+b.unit))
	for _, it := range items[:min(len(items), maxBadListed)] {
		fmt.Fprintf(&s, "\n  %s: %s", posName(b.unit, it.pos, it.ref), strings.TrimPrefix(it.err.Error(), amem.ErrInvalid.Error()+": "))
	}
	if more := b.total() - min(len(items), maxBadListed); more > 0 {
		fmt.Fprintf(&s, "\n  and %d more", more)
	}
	return s.String()
}

func (b *badInput) Unwrap() error { return amem.ErrInvalid }

// posName words a record's position for an error.
func posName(unit string, pos int, ref string) string {
	s := unit + " " + strconv.Itoa(pos)
	if ref != "" {
		s += " (id " + ref + ")"
	}
	return s
}
