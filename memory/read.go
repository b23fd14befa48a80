package memory

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/amem-dev/amem"
)

// Get returns a note of the namespace, with its embedding and links.
func (m *Memory) Get(ctx context.Context, ns, id string) (amem.Note, error) {
	if err := validID(id); err != nil {
		return amem.Note{}, err
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return amem.Note{}, err
	}
	var n amem.Note
	err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		n, err = tx.Note(ns, id)
		return err
	})
	return n, err
}

// Lookup finds a note by ID in any namespace. It is for administration
// (the CLI resolving an ID); servers must use Get, which keeps namespaces
// apart.
func (m *Memory) Lookup(ctx context.Context, id string) (amem.Note, error) {
	if err := validID(id); err != nil {
		return amem.Note{}, err
	}
	var n amem.Note
	err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		n, err = tx.FindNote(id)
		return err
	})
	return n, err
}

// List pages through a namespace's notes in ID (creation) order.
func (m *Memory) List(ctx context.Context, ns string, q amem.ListQuery) ([]amem.Note, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return nil, err
	}
	if q.After != "" {
		if err := validID(q.After); err != nil {
			return nil, err
		}
	}
	var notes []amem.Note
	err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		notes, err = tx.ListNotes(ns, q)
		return err
	})
	return notes, err
}

// Namespaces lists every namespace.
func (m *Memory) Namespaces(ctx context.Context) ([]amem.NamespaceInfo, error) {
	var out []amem.NamespaceInfo
	err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		out, err = tx.Namespaces()
		return err
	})
	return out, err
}

// Links returns the notes linked to id, in both directions, strongest
// link first.
func (m *Memory) Links(ctx context.Context, ns, id string) ([]amem.Neighbor, error) {
	n, err := m.Get(ctx, ns, id)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(n.Links))
	for _, l := range n.Links {
		ids = append(ids, l.Other(id))
	}
	var others []amem.Note
	if err := m.view(ctx, func(tx amem.Tx) error {
		var err error
		others, err = tx.Notes(ns, ids)
		return err
	}); err != nil {
		return nil, err
	}
	byID := make(map[string]amem.Note, len(others))
	for _, o := range others {
		byID[o.ID] = o
	}
	out := make([]amem.Neighbor, 0, len(n.Links))
	for _, l := range n.Links {
		if o, ok := byID[l.Other(id)]; ok {
			out = append(out, amem.Neighbor{Link: l, Note: o})
		}
	}
	slices.SortStableFunc(out, func(a, b amem.Neighbor) int { return cmpStrength(a.Link, b.Link) })
	return out, nil
}

func cmpStrength(a, b amem.Link) int {
	switch {
	case a.Strength > b.Strength:
		return -1
	case a.Strength < b.Strength:
		return 1
	}
	return a.CreatedAt.Compare(b.CreatedAt)
}

// History returns every version of a note, oldest first.
func (m *Memory) History(ctx context.Context, ns, id string) ([]amem.Version, error) {
	var vs []amem.Version
	err := m.viewNote(ctx, ns, id, func(tx amem.Tx) (err error) {
		vs, err = tx.Versions(ns, id)
		return err
	})
	return vs, err
}

// viewNote runs fn in a read transaction if the note exists; a bad
// namespace or ID, or a missing note, is an error.
func (m *Memory) viewNote(ctx context.Context, ns, id string, fn func(amem.Tx) error) error {
	if err := validID(id); err != nil {
		return err
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return err
	}
	return m.view(ctx, func(tx amem.Tx) error {
		if _, err := tx.Note(ns, id); err != nil {
			return err
		}
		return fn(tx)
	})
}

// NoteUsage returns the model tokens spent enriching a note, by operation
// (construct, connect, evolve), failed attempts included. Tokens a note's
// enrichment spent on evolving its neighbours count for it, not for them.
// A store that keeps no usage (amem.UsageKeeper) reports none.
func (m *Memory) NoteUsage(ctx context.Context, ns, id string) ([]amem.UsageTotal, error) {
	var out []amem.UsageTotal
	err := m.viewNote(ctx, ns, id, func(tx amem.Tx) (err error) {
		if k, ok := tx.(amem.UsageKeeper); ok {
			out, err = k.NoteUsage(ns, id)
		}
		return err
	})
	return out, err
}

// Stats returns counts and token usage per namespace; an empty ns means
// every namespace.
func (m *Memory) Stats(ctx context.Context, ns string) ([]amem.Stats, error) {
	var out []amem.Stats
	err := m.view(ctx, func(tx amem.Tx) error {
		infos, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, info := range infos {
			if ns != "" && info.Name != ns {
				continue
			}
			st, err := tx.Stats(info.Name)
			if err != nil {
				return err
			}
			var u []amem.UsageTotal
			if k, ok := tx.(amem.UsageKeeper); ok {
				if u, err = k.UsageTotals(info.Name); err != nil {
					return err
				}
			}
			var total amem.Usage
			for _, x := range u {
				total = total.Add(x.Usage)
			}
			r, due, err := m.retentionDueIn(tx, info.Name)
			if err != nil {
				return err
			}
			out = append(out, amem.Stats{Namespace: info.Name, NamespaceStats: st, Embedder: info.Embedder, Dimensions: info.Dimensions, Usage: u, Tokens: total,
				Retention: r, RetentionDue: due})
		}
		return nil
	})
	return out, err
}

// Browse returns a page of notes in ID (creation) order, or by event time
// if q.ByEventTime (browseByEventTime), newest first if q.Newest, that pass q.Filter and are in q.State (any state if empty).
// Oldest first without a filter it is List. Otherwise it reads the IDs
// that pass the filter, one query returning only IDs, then the page's
// notes: a page costs in proportion to the namespace, which suits people
// paging through a namespace; bulk readers use List.
func (m *Memory) Browse(ctx context.Context, ns string, q amem.BrowseQuery) ([]amem.Note, error) {
	if q.Limit < 1 {
		return nil, invalidf("limit is %d; it must be 1 or more", q.Limit)
	}
	f, err := validFilter(q.Filter)
	if err != nil {
		return nil, err
	}
	if q.ByEventTime {
		return m.browseByEventTime(ctx, ns, q, f)
	}
	if !q.Newest && f.IsZero() {
		return m.List(ctx, ns, amem.ListQuery{After: q.After, Limit: q.Limit, State: q.State})
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return nil, err
	}
	if q.After != "" {
		if err := validID(q.After); err != nil {
			return nil, err
		}
	}
	order := func(a, b string) int { return strings.Compare(a, b) }
	if q.Newest {
		order = func(a, b string) int { return strings.Compare(b, a) }
	}
	var out []amem.Note
	err = m.view(ctx, func(tx amem.Tx) error {
		ids, err := tx.MatchIDs(ns, f)
		if err != nil {
			return err
		}
		slices.SortFunc(ids, order)
		if q.After != "" {
			i, found := slices.BinarySearchFunc(ids, q.After, order)
			if found {
				i++
			}
			ids = ids[i:]
		}
		for len(ids) > 0 && len(out) < q.Limit {
			chunk := ids[:min(len(ids), q.Limit)]
			ids = ids[len(chunk):]
			notes, err := tx.Notes(ns, chunk)
			if err != nil {
				return err
			}
			slices.SortFunc(notes, func(a, b amem.Note) int { return order(a.ID, b.ID) })
			for _, n := range notes {
				if q.State != "" && n.Enrichment.State != q.State {
					continue
				}
				n.Embedding = nil // List leaves it out too
				out = append(out, n)
				if len(out) == q.Limit {
					break
				}
			}
		}
		return nil
	})
	return out, err
}

// eventTimeChunk is how many notes browseByEventTime reads at once.
const eventTimeChunk = 500

// browseByEventTime is Browse by (EventTime, ID). Without a filter, on a
// store that pages by event time (amem.EventTimePager), it reads the page
// alone (pageByEventTime). Otherwise every note that passes the filter is
// read (in chunks, without its embedding) for its time, and the page cut
// from them sorted: a page costs in proportion to the namespace, as
// Browse's other orders with a filter do. q.After is the last note of the
// previous page; the page goes on from its event time as it is now (a
// note whose time changed between pages moves with it).
func (m *Memory) browseByEventTime(ctx context.Context, ns string, q amem.BrowseQuery, f amem.Filter) ([]amem.Note, error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return nil, err
	}
	if q.After != "" {
		if err := validID(q.After); err != nil {
			return nil, err
		}
	}
	type key struct {
		t  time.Time
		id string
	}
	cmp := func(a, b key) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	}
	if q.Newest {
		asc := cmp
		cmp = func(a, b key) int { return asc(b, a) }
	}
	var out []amem.Note
	err := m.view(ctx, func(tx amem.Tx) error {
		if p, ok := tx.(amem.EventTimePager); ok && f.IsZero() {
			var err error
			out, err = pageByEventTime(tx, p, ns, q)
			return err
		}
		ids, err := tx.MatchIDs(ns, f)
		if err != nil {
			return err
		}
		var after *key
		if q.After != "" {
			k, err := eventKeyOf(tx, ns, q.After)
			if err != nil {
				return err
			}
			after = &key{k.Time, k.ID}
		}
		// The page's candidates, kept sorted and at most q.Limit long:
		// the notes are not all held at once.
		var page []amem.Note
		for len(ids) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			chunk := ids[:min(len(ids), eventTimeChunk)]
			ids = ids[len(chunk):]
			notes, err := tx.NotesWithoutEmbeddings(ns, chunk)
			if err != nil {
				return err
			}
			for _, n := range notes {
				k := key{n.EventTime, n.ID}
				if q.State != "" && n.Enrichment.State != q.State || after != nil && cmp(k, *after) <= 0 {
					continue
				}
				if len(page) == q.Limit && cmp(k, key{page[len(page)-1].EventTime, page[len(page)-1].ID}) >= 0 {
					continue
				}
				i, _ := slices.BinarySearchFunc(page, k, func(p amem.Note, k key) int { return cmp(key{p.EventTime, p.ID}, k) })
				page = slices.Insert(page, i, n)
				if len(page) > q.Limit {
					page = page[:q.Limit]
				}
			}
		}
		out = page
		return nil
	})
	return out, err
}
