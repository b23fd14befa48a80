package amem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// Record is one line of an export: a note with its embedding, the links it
// chose (Source == ID; each link is exported once, by its source), the
// embedder that made the vector, and its full history.
type Record struct {
	Note
	Embedder string    `json:"embedder"`
	Versions []Version `json:"versions"`
}

// Export writes every note of the namespace (all namespaces when ns is
// empty) as JSON lines, in namespace then ID order. Importing the output
// into an empty store gives the same notes, links, versions and times.
func (m *Memory) Export(ctx context.Context, w io.Writer, ns string) (int, error) {
	infos, err := m.Namespaces(ctx)
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
		after := ""
		for {
			var page []Note
			versions := make(map[string][]Version)
			err := m.view(ctx, func(tx Tx) error {
				var err error
				page, err = tx.ListNotes(info.Name, ListQuery{After: after, Limit: 500, Embeddings: true})
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
				return count, fmt.Errorf("export %s: %w", info.Name, err)
			}
			for _, n := range page {
				n.Links = slices.DeleteFunc(n.Links, func(l Link) bool { return l.Source != n.ID })
				rec := Record{Note: n, Embedder: info.Embedder, Versions: versions[n.ID]}
				if err := enc.Encode(rec); err != nil {
					return count, fmt.Errorf("export: %w", err)
				}
				count++
			}
			if len(page) < 500 {
				break
			}
			after = page[len(page)-1].ID
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
}

// ImportStats says what Import did.
type ImportStats struct {
	Restored   int `json:"restored"`   // exported notes stored as they were
	Added      int `json:"added"`      // plain lines added as new notes
	Unchanged  int `json:"unchanged"`  // exported notes already present
	Links      int `json:"links"`      // links restored
	Reembedded int `json:"reembedded"` // vectors recomputed: another embedder made them
}

// importLine is either an exported Record (it has an id) or a plain new
// memory: {"content", "time" or "event_time", "namespace", "keywords",
// "tags", "metadata"}.
type importLine struct {
	Record
	Time *time.Time `json:"time"`
}

// Import reads JSON lines. Exported records (with an id) are stored as
// they were, with their links and history, in one transaction; a record
// whose ID exists at the same version is left alone, at another version
// it is ErrConflict. Plain lines are added with Add (and enriched). Every
// line is parsed and checked before anything is written: a bad line is an
// error naming it and nothing is stored.
func (m *Memory) Import(ctx context.Context, r io.Reader, opts ImportOptions) (ImportStats, error) {
	var st ImportStats
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	if err := ValidNamespace(opts.Namespace); err != nil {
		return st, err
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 16 << 20
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), opts.MaxLineBytes)
	var recs []Record
	var plain []AddRequest
	seen := make(map[string]int)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var il importLine
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&il); err != nil {
			return st, invalidf("line %d: %v", line, err)
		}
		if il.ID == "" {
			req := AddRequest{Namespace: il.Namespace, Content: il.Content, EventTime: il.EventTime,
				Keywords: il.Keywords, Tags: il.Tags, Metadata: il.Metadata}
			if il.Time != nil {
				req.EventTime = *il.Time
			}
			if req.Namespace == "" {
				req.Namespace = opts.Namespace
			}
			if _, err := m.newNote(req); err != nil {
				return st, fmt.Errorf("line %d: %w", line, err)
			}
			plain = append(plain, req)
			continue
		}
		if err := m.checkRecord(il.Record); err != nil {
			return st, fmt.Errorf("line %d: %w", line, err)
		}
		if prev, dup := seen[il.ID]; dup {
			return st, invalidf("line %d: note %s is also on line %d", line, il.ID, prev)
		}
		seen[il.ID] = line
		recs = append(recs, il.Record)
	}
	if err := sc.Err(); err != nil {
		return st, invalidf("read import: %v (is a line over %d bytes?)", err, opts.MaxLineBytes)
	}
	if err := m.restoreRecords(ctx, recs, &st); err != nil {
		return st, err
	}
	for _, req := range plain {
		if _, err := m.Add(ctx, req); err != nil {
			return st, err
		}
		st.Added++
	}
	return st, nil
}

func (m *Memory) checkRecord(r Record) error {
	if err := validID(r.ID); err != nil {
		return err
	}
	if err := ValidNamespace(r.Namespace); err != nil {
		return err
	}
	if err := m.validContent(r.Content); err != nil {
		return err
	}
	if r.Version < 1 {
		return invalidf("note %s has version %d", r.ID, r.Version)
	}
	if err := validContext(r.Context); err != nil {
		return err
	}
	if err := validMetadata(r.Metadata); err != nil {
		return err
	}
	switch r.Enrichment.State {
	case EnrichPending, EnrichDone, EnrichFailed:
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
	return nil
}

// restoreRecords stores exported notes as they were, in one transaction.
func (m *Memory) restoreRecords(ctx context.Context, recs []Record, st *ImportStats) error {
	if len(recs) == 0 {
		return nil
	}
	// Vectors from another embedder are recomputed: a namespace never
	// mixes models.
	var texts []string
	var which []int
	for i, r := range recs {
		if r.Embedder != m.opts.Embedder.Name() || len(r.Embedding) != m.opts.Embedder.Dimensions() {
			texts = append(texts, m.opts.EmbedText(r.Note))
			which = append(which, i)
		}
	}
	vecs, err := m.embed(ctx, texts)
	if err != nil {
		return err
	}
	for j, i := range which {
		recs[i].Embedding = vecs[j]
	}
	var nss []string
	for _, r := range recs {
		nss = append(nss, r.Namespace)
	}
	known := make(map[string]string, len(recs)) // ID -> namespace
	err = m.update(ctx, func(tx Tx) error {
		*st = ImportStats{Reembedded: len(which)}
		var fresh []Record
		for _, r := range recs {
			if err := m.ensureNamespace(tx, r.Namespace); err != nil {
				return err
			}
			cur, err := tx.FindNote(r.ID)
			switch {
			case err == nil && cur.Namespace == r.Namespace && cur.Version == r.Version:
				st.Unchanged++
				known[r.ID] = r.Namespace
				continue
			case err == nil:
				return fmt.Errorf("%w: note %s exists at version %d of namespace %s; the import has version %d of namespace %s",
					ErrConflict, r.ID, cur.Version, cur.Namespace, r.Version, r.Namespace)
			case !errors.Is(err, ErrNotFound):
				return err
			}
			n := r.Note
			n.Links = []Link{}
			versions := r.Versions
			if len(versions) == 0 {
				// Its one history row is version 1, so the history has
				// no gap.
				n.Version = 1
				versions = []Version{m.version(n, ActorImport, "imported without history", nil)}
			}
			if n.Enrichment.State != EnrichDone && n.Enrichment.DueAt.IsZero() &&
				(n.Enrichment.State == EnrichPending || n.Enrichment.Attempts < m.opts.MaxAttempts) {
				// Exported before the queue had due times: due now.
				n.Enrichment.DueAt = m.opts.Now().UTC()
			}
			if err := tx.InsertNote(n); err != nil {
				return err
			}
			for _, v := range versions {
				if err := tx.AddVersion(v); err != nil {
					return err
				}
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
	})
	if err != nil {
		return err
	}
	m.advance(ctx, nss...)
	return nil
}
