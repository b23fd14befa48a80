package transfer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/jsonin"
)

// Record is one line of an export: a note with its embedding, the links it
// chose (Source == ID; each link is exported once, by its source), the
// embedder that made the vector, and its full history.
type Record struct {
	amem.Note
	Embedder string         `json:"embedder"`
	Versions []amem.Version `json:"versions"`
}

// Export writes every note of the namespace (all namespaces when ns is
// empty) as JSON lines, in namespace then ID order. Importing the output
// into an empty store gives the same notes, links, versions and times.
func Export(ctx context.Context, r Reader, w io.Writer, ns string) (int, error) {
	var infos []amem.NamespaceInfo
	err := r.View(ctx, func(tx amem.Tx) error {
		var err error
		infos, err = tx.Namespaces()
		return err
	})
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	count := 0
	for _, info := range infos {
		if ns != "" && info.Name != ns {
			continue
		}
		// A page and its notes' versions are read in one transaction.
		var versions map[string][]amem.Version
		err := amem.EachPage(func(after string, limit int) (page []amem.Note, err error) {
			versions = make(map[string][]amem.Version)
			err = r.View(ctx, func(tx amem.Tx) error {
				var err error
				page, err = tx.ListNotes(info.Name, amem.ListQuery{After: after, Limit: limit, Embeddings: true})
				if err != nil {
					return err
				}
				for _, n := range page {
					if versions[n.ID], err = tx.Versions(info.Name, n.ID); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("export %s: %w", info.Name, err)
			}
			return page, nil
		}, func(page []amem.Note) (bool, error) {
			for _, n := range page {
				n.Links = slices.DeleteFunc(n.Links, func(l amem.Link) bool { return l.Source != n.ID })
				rec := Record{Note: n, Embedder: info.Embedder, Versions: versions[n.ID]}
				if err := enc.Encode(rec); err != nil {
					return false, fmt.Errorf("export: %w", err)
				}
				count++
			}
			return true, nil
		})
		if err != nil {
			return count, err
		}
	}
	return count, bw.Flush()
}

// ImportOptions configure Import.
type ImportOptions struct {
	// Namespace for lines that name none (default "default").
	Namespace string
	// MaxLineBytes bounds one line (default 16 MiB).
	MaxLineBytes int
	// DryRun checks every line and counts what the import would do,
	// writing nothing and embedding nothing: a caller that imports a large
	// file in several calls checks all of it first, so that a bad line
	// stops it before anything is stored.
	DryRun bool
}

// ImportStats says what Import did.
type ImportStats struct {
	Restored   int `json:"restored"`   // exported notes stored as they were
	Added      int `json:"added"`      // plain lines added as new notes
	Unchanged  int `json:"unchanged"`  // exported notes already present
	Links      int `json:"links"`      // links restored
	Reembedded int `json:"reembedded"` // vectors recomputed: another embedder made them
	// Duplicates are plain lines not added: their note is already in the
	// namespace, or an earlier line of the import is the same note.
	Duplicates int `json:"duplicates"`
}

// importLine is either an exported Record (it has an id) or a plain new
// memory: {"content", "time" or "event_time", "namespace", "keywords",
// "tags", "metadata"}. Its times shadow Note.EventTime, so that a time
// given can be told from none, and a bad one is named in the error.
type importLine struct {
	Record
	Time      *jsonin.Time `json:"time"`
	EventTime *jsonin.Time `json:"event_time"`
}

// plainLine is a plain line, checked and made a note.
type plainLine struct {
	line int
	note amem.Note
	// timed: the line gave a time, which a duplicate must share;
	// without one, the same content is the same note.
	timed bool
}

// Import reads JSON lines and stores them in one transaction: all of them
// or, on any error, nothing. Every line is parsed and checked first; an
// import with bad lines is an *ImportError listing them, and nothing is
// stored.
//
// Exported records (with an id) are stored as they were, with their links
// and history; a record whose ID exists at the same version is left
// alone, at another version it is ErrConflict. Plain lines become new
// notes, except duplicates: a note of the namespace with the same content
// and the same event time (for a line without a time, the same content
// at any time), or an earlier line that is the same note, so that
// importing a file again adds nothing twice. The new notes are enriched
// after the transaction through Host.EnrichNew, as Add would (in the
// background with the memory's Options.Enrich.Async); until then they are
// stored and pending.
func Import(ctx context.Context, h Host, r io.Reader, opts ImportOptions) (ImportStats, error) {
	var st ImportStats
	if opts.Namespace == "" {
		opts.Namespace = amem.DefaultNamespace
	}
	if err := amem.ValidNamespace(opts.Namespace); err != nil {
		return st, err
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 16 << 20
	}
	recs, plain, err := readImport(h, r, opts)
	if err != nil {
		return st, err
	}
	plain, repeats := dropRepeats(plain)
	// Notes present already are dropped before embedding them, which is
	// most of an import's time; the write checks again.
	plain, present, err := dropPresent(ctx, h, plain)
	if err != nil {
		return st, err
	}
	if opts.DryRun {
		return dryRun(ctx, h, recs, len(plain), repeats+present)
	}
	reembedded, err := reembedRecords(ctx, h, recs)
	if err != nil {
		return st, err
	}
	notes := make([]amem.Note, len(plain))
	for i, p := range plain {
		notes[i] = p.note
	}
	if err := h.EmbedNotes(ctx, notes); err != nil {
		return st, err
	}
	for i := range plain {
		plain[i].note = notes[i]
	}
	st = ImportStats{Reembedded: reembedded, Duplicates: repeats + present}
	added, err := writeImport(ctx, h, recs, plain, &st)
	if err != nil {
		return ImportStats{}, err
	}
	h.EnrichNew(ctx, added)
	return st, nil
}

// dryRun counts what storing recs and adding plain new notes would do.
// Links are counted for every record that would be restored; the write
// still checks them.
func dryRun(ctx context.Context, rd Reader, recs []Record, plain, duplicates int) (ImportStats, error) {
	st := ImportStats{Added: plain, Duplicates: duplicates}
	err := rd.View(ctx, func(tx amem.Tx) error {
		st.Restored, st.Unchanged, st.Links = 0, 0, 0
		for _, r := range recs {
			cur, err := tx.FindNote(r.ID)
			switch {
			case err == nil && cur.Namespace == r.Namespace && cur.Version == r.Version:
				st.Unchanged++
			case err == nil:
				return recordConflict(r, cur)
			case errors.Is(err, amem.ErrNotFound):
				st.Restored++
				st.Links += len(r.Links)
			default:
				return err
			}
		}
		return nil
	})
	return st, err
}

// writeImport stores the records and the plain lines' notes, embedded, in
// one write, and returns the notes it added. st holds the counts so far.
func writeImport(ctx context.Context, h Host, recs []Record, plain []plainLine, st *ImportStats) ([]amem.Note, error) {
	var nss []string
	for _, r := range recs {
		nss = append(nss, r.Namespace)
	}
	for _, p := range plain {
		nss = append(nss, p.note.Namespace)
	}
	if len(nss) == 0 {
		return nil, nil
	}
	before := *st
	var added []amem.Note
	err := h.Update(ctx, func(tx amem.Tx) error {
		*st, added = before, added[:0] // as new, should the store run fn again
		if err := restoreRecords(h, tx, recs, st); err != nil {
			return err
		}
		for _, p := range plain {
			dup, err := p.stored(tx)
			if err != nil {
				return err
			}
			if dup { // added by another writer since dropPresent
				st.Duplicates++
				continue
			}
			err = h.EnsureNamespace(tx, p.note.Namespace)
			if err == nil {
				err = insert(h, tx, p.note, []amem.Version{amem.NewVersion(p.note, amem.ActorImport, "imported", nil)})
			}
			if err != nil {
				return fmt.Errorf("line %d: %w", p.line, err)
			}
			added = append(added, p.note)
		}
		st.Added = len(added)
		return nil
	})
	if err == nil {
		h.Advance(ctx, nss...)
	}
	return added, err
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// readImport parses and checks every line. A bad line does not stop it:
// the error lists every bad line (the first maxBadLines of them).
func readImport(c Checker, r io.Reader, opts ImportOptions) ([]Record, []plainLine, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), opts.MaxLineBytes)
	var (
		recs  []Record
		plain []plainLine
		bad   ImportError
		seen  = make(map[string]int) // record ID -> line
		line  = 0
	)
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, utf8BOM) // as some editors write
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var il importLine
		if err := jsonin.Decode(b, &il, "the line"); err != nil {
			bad.add(line, invalidf("%v", err))
			continue
		}
		if il.ID == "" {
			p, err := newPlainLine(c, il, opts.Namespace)
			if err != nil {
				bad.add(line, err)
				continue
			}
			p.line = line
			plain = append(plain, p)
			continue
		}
		if il.EventTime != nil {
			il.Record.EventTime = il.EventTime.Time
		}
		if err := checkRecord(c, il.Record); err != nil {
			bad.add(line, err)
			continue
		}
		if prev, dup := seen[il.ID]; dup {
			bad.add(line, invalidf("note %s is also on line %d", il.ID, prev))
			continue
		}
		seen[il.ID] = line
		recs = append(recs, il.Record)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		bad.add(line+1, invalidf("the line is over %d bytes (the limit of one line); reading stopped here", opts.MaxLineBytes))
	} else if err != nil {
		return nil, nil, fmt.Errorf("read import: %w", err)
	}
	if bad.Total > 0 {
		return nil, nil, &bad
	}
	return recs, plain, nil
}

// newPlainLine checks a line without an id and makes its note.
func newPlainLine(c Checker, il importLine, ns string) (plainLine, error) {
	at := il.Time
	if il.EventTime != nil {
		if at != nil {
			return plainLine{}, invalidf("the line gives both time and event_time; give one")
		}
		at = il.EventTime
	}
	if len(il.CuratorTags) > 0 {
		return plainLine{}, invalidf("a line without an id is the caller's note, whose tags are all the caller's; curator_tags is kept only on exported notes (with an id)")
	}
	req := amem.AddRequest{Namespace: il.Namespace, Content: il.Content,
		Keywords: il.Keywords, Tags: il.Tags, Context: il.Context, Metadata: il.Metadata}
	if req.Namespace == "" {
		req.Namespace = ns
	}
	if at != nil {
		if err := amem.ValidEventTime(at.Time); err != nil {
			return plainLine{}, err
		}
		req.EventTime = at.Time
	}
	n, err := c.NewNote(req)
	return plainLine{note: n, timed: at != nil}, err
}

// dropRepeats drops plain lines that are the same note as an earlier line,
// by the rule stored notes are matched with: same namespace and content,
// and the same time when the later line gives one.
func dropRepeats(plain []plainLine) ([]plainLine, int) {
	type text struct{ ns, content string }
	type timedText struct {
		text
		at int64
	}
	anyTime := make(map[text]bool)
	atTime := make(map[timedText]bool)
	out := plain[:0]
	for _, p := range plain {
		k := text{p.note.Namespace, p.note.Content}
		tk := timedText{k, p.note.EventTime.UnixNano()}
		if (p.timed && atTime[tk]) || (!p.timed && anyTime[k]) {
			continue
		}
		anyTime[k], atTime[tk] = true, true
		out = append(out, p)
	}
	return out, len(plain) - len(out)
}

// dropPresent drops plain lines whose note the store holds already.
func dropPresent(ctx context.Context, r Reader, plain []plainLine) ([]plainLine, int, error) {
	if len(plain) == 0 {
		return plain, 0, nil
	}
	out := plain[:0]
	err := r.View(ctx, func(tx amem.Tx) error {
		out = plain[:0]
		for _, p := range plain {
			dup, err := p.stored(tx)
			if err != nil {
				return err
			}
			if !dup {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, len(plain) - len(out), err
}

// stored reports whether the namespace holds p's note already.
func (p plainLine) stored(tx amem.Tx) (bool, error) {
	var at time.Time // any time
	if p.timed {
		at = p.note.EventTime
	}
	ids, err := tx.NoteIDsByContent(p.note.Namespace, p.note.Content, at)
	return len(ids) > 0, err
}

// maxBadLines bounds the bad lines an ImportError lists.
const maxBadLines = 20

// ImportError is Import's answer to bad lines: nothing was stored. It
// lists the first bad lines with their numbers (1-based) and counts the
// rest. It is ErrInvalid.
type ImportError struct {
	Lines []LineError
	// Total counts every bad line, listed or not.
	Total int
}

// LineError is one bad line of an import.
type LineError struct {
	Line int
	Err  error
}

func (e *ImportError) add(line int, err error) {
	e.Total++
	if len(e.Lines) < maxBadLines {
		e.Lines = append(e.Lines, LineError{line, err})
	}
}

func (e *ImportError) Error() string {
	var b strings.Builder
	lines := "lines"
	if e.Total == 1 {
		lines = "line"
	}
	fmt.Fprintf(&b, "%v: %d bad %s, nothing was imported:", amem.ErrInvalid, e.Total, lines)
	for _, l := range e.Lines {
		fmt.Fprintf(&b, "\n  line %d: %s", l.Line, strings.TrimPrefix(l.Err.Error(), amem.ErrInvalid.Error()+": "))
	}
	if more := e.Total - len(e.Lines); more > 0 {
		fmt.Fprintf(&b, "\n  and %d more", more)
	}
	return b.String()
}

func (e *ImportError) Unwrap() error { return amem.ErrInvalid }

func checkRecord(c Checker, r Record) error {
	if err := validID(r.ID); err != nil {
		return err
	}
	if err := amem.ValidNamespace(r.Namespace); err != nil {
		return err
	}
	if err := c.CheckContent(r.Content); err != nil {
		return err
	}
	if r.Version < 1 {
		return invalidf("note %s has version %d", r.ID, r.Version)
	}
	if err := amem.ValidContext(r.Context); err != nil {
		return err
	}
	if err := amem.ValidMetadata(r.Metadata); err != nil {
		return err
	}
	for _, t := range r.CuratorTags {
		if !amem.HasTag(r.Tags, t) {
			return invalidf("note %s has curator tag %q, which is not one of its tags", r.ID, t)
		}
	}
	switch r.Enrichment.State {
	case amem.EnrichPending, amem.EnrichDone, amem.EnrichFailed:
	default:
		return invalidf("note %s has enrichment state %q", r.ID, r.Enrichment.State)
	}
	for _, v := range r.Versions {
		if v.NoteID != r.ID || v.Namespace != r.Namespace || v.Version < 1 || v.Version > r.Version {
			return invalidf("note %s has a version row that is not its own (note %s, namespace %s, version %d)", r.ID, v.NoteID, v.Namespace, v.Version)
		}
	}
	for _, l := range r.Links {
		if l.Source != r.ID || validID(l.Target) != nil || l.Target == r.ID {
			return invalidf("note %s has a link %s->%s that it can't hold", r.ID, l.Source, l.Target)
		}
	}
	return checkValidity(r.Note)
}

// reembedRecords recomputes the vectors that another embedder made: a
// namespace never mixes models. It returns how many it recomputed.
func reembedRecords(ctx context.Context, e Embedding, recs []Record) (int, error) {
	emb := e.Embedder()
	var notes []amem.Note
	var which []int
	for i, r := range recs {
		if r.Embedder != emb.Name() || len(r.Embedding) != emb.Dimensions() {
			notes = append(notes, r.Note)
			which = append(which, i)
		}
	}
	if err := e.EmbedNotes(ctx, notes); err != nil {
		return 0, err
	}
	for j, i := range which {
		recs[i].Embedding = notes[j].Embedding
	}
	return len(which), nil
}

// recordConflict is an exported record whose ID the store holds as
// another note or at another version.
func recordConflict(r Record, cur amem.Note) error {
	return fmt.Errorf("%w: note %s exists at version %d of namespace %s; the import has version %d of namespace %s",
		amem.ErrConflict, r.ID, cur.Version, cur.Namespace, r.Version, r.Namespace)
}

// restoreRecords stores exported notes as they were, inside a write.
func restoreRecords(h Host, tx amem.Tx, recs []Record, st *ImportStats) error {
	known := make(map[string]string, len(recs)) // ID -> namespace
	var fresh []Record
	for _, r := range recs {
		if err := h.EnsureNamespace(tx, r.Namespace); err != nil {
			return err
		}
		cur, err := tx.FindNote(r.ID)
		switch {
		case err == nil && cur.Namespace == r.Namespace && cur.Version == r.Version:
			st.Unchanged++
			known[r.ID] = r.Namespace
			continue
		case err == nil:
			return recordConflict(r, cur)
		case !errors.Is(err, amem.ErrNotFound):
			return err
		}
		n := r.Note
		n.Links = []amem.Link{}
		versions := r.Versions
		if len(versions) == 0 {
			// Its one history row is version 1, so the history has no
			// gap.
			n.Version = 1
			versions = []amem.Version{amem.NewVersion(n, amem.ActorImport, "imported without history", nil)}
		}
		if n.Enrichment.State != amem.EnrichDone && n.Enrichment.DueAt.IsZero() &&
			(n.Enrichment.State == amem.EnrichPending || n.Enrichment.Attempts < h.MaxAttempts()) {
			// Exported before the queue had due times: due now.
			n.Enrichment.DueAt = h.Now().UTC()
		}
		if err := insert(h, tx, n, versions); err != nil {
			return err
		}
		known[r.ID] = r.Namespace
		fresh = append(fresh, r)
		st.Restored++
	}
	for _, r := range fresh {
		for _, l := range r.Links {
			if ns, ok := known[l.Target]; ok && ns != r.Namespace {
				return invalidf("note %s links to %s in namespace %s: links never cross namespaces", r.ID, l.Target, ns)
			}
			if err := tx.PutLink(r.Namespace, l); err != nil {
				return fmt.Errorf("link %s->%s: %w", l.Source, l.Target, err)
			}
			st.Links++
		}
	}
	return nil
}

// insert stores a new note with its versions and its created event,
// inside a write that has ensured its namespace.
func insert(w Writer, tx amem.Tx, n amem.Note, versions []amem.Version) error {
	if err := tx.InsertNote(n); err != nil {
		return err
	}
	for _, v := range versions {
		if err := tx.AddVersion(v); err != nil {
			return err
		}
	}
	return amem.RecordEvent(tx, n, amem.EventCreated, w.Now())
}
