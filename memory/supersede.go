package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/search"
)

// Supersession (issue 30): a new note can make an old one no longer true.
// The curator decides it (amem.Decision.Supersede), package enrich applies it
// to notes the curator was shown, a caller's word (UpdateRequest.Validity)
// wins over the curator's, and search prefers what is true now. Both
// notes always stay.

// validityUpdate is a caller's Validity resolved: the superseding note's
// event time read when Until is left zero.
type validityUpdate struct {
	until time.Time
	by    string
}

// resolveValidity checks a caller's Validity of note id: the superseding
// note must be another note of the namespace.
func (m *Memory) resolveValidity(ctx context.Context, ns, id string, v amem.Validity) (validityUpdate, error) {
	u := validityUpdate{until: v.Until.UTC(), by: v.SupersededBy}
	if v.Until.IsZero() {
		u.until = time.Time{}
	} else if err := amem.ValidEventTime(v.Until); err != nil {
		return u, fmt.Errorf("valid until: %w", err)
	}
	if u.by == "" {
		return u, nil
	}
	if err := validID(u.by); err != nil {
		return u, fmt.Errorf("superseded by: %w", err)
	}
	if u.by == id {
		return u, invalidf("note %s can't supersede itself", id)
	}
	by, err := m.Get(ctx, ns, u.by)
	if err != nil {
		return u, fmt.Errorf("superseded by: %w", err)
	}
	if u.until.IsZero() {
		u.until = by.ValidFrom()
	}
	return u, nil
}

// apply sets the caller's validity on n, which the curator then leaves
// alone.
func (u validityUpdate) apply(n amem.Note) amem.Note {
	n.ValidUntil, n.SupersededBy, n.CallerValidity = u.until, u.by, true
	return n
}

// reason is the history's reason for a caller's validity change.
func (u validityUpdate) reason() string {
	switch {
	case u.by != "":
		return "marked superseded by note " + u.by
	case !u.until.IsZero():
		return "marked no longer true"
	}
	return "restored to current"
}

// relink makes the links agree with a caller's validity change from cur
// to next, in the change's transaction: the superseding note's link to
// this one becomes a supersedes link (created if there was none), and a
// supersedes link to it from a note that no longer supersedes it becomes
// a related one, so that the two stay connected.
func relink(tx amem.Tx, cur, next amem.Note) error {
	ns := next.Namespace
	var have *amem.Link
	for i, l := range cur.Links {
		if l.Target != next.ID {
			continue
		}
		if l.Source == next.SupersededBy {
			have = &cur.Links[i]
			continue
		}
		if l.Kind == amem.LinkSupersedes {
			l.Kind = amem.LinkRelated
			if err := tx.PutLink(ns, l); err != nil && !errors.Is(err, amem.ErrNotFound) {
				return err
			}
		}
	}
	if next.SupersededBy == "" {
		return nil
	}
	l := amem.Link{Source: next.SupersededBy, Target: next.ID, Reason: "marked by the caller", Strength: 1, CreatedAt: next.UpdatedAt}
	if have != nil {
		l = *have
	}
	l.Kind = amem.LinkSupersedes
	return tx.PutLink(ns, l)
}

// unsupersede restores to current, in Delete's transaction, the notes
// that the deleted note superseded by the curator's decision: with the
// note gone, nothing says they stopped being true. A caller's word stays.
func (m *Memory) unsupersede(tx amem.Tx, deleted amem.Note) error {
	for _, l := range deleted.Links {
		if l.Kind != amem.LinkSupersedes || l.Source != deleted.ID {
			continue
		}
		old, err := tx.Note(deleted.Namespace, l.Target)
		if errors.Is(err, amem.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if old.SupersededBy != deleted.ID || old.CallerValidity {
			continue
		}
		next := old.Clone()
		next.ValidUntil, next.SupersededBy = time.Time{}, ""
		next.Version = old.Version + 1
		next.UpdatedAt = m.opts.Now().UTC()
		if err := tx.UpdateNote(next, old.Version); err != nil {
			return err
		}
		if err := tx.AddVersion(amem.NewVersion(next, amem.ActorEvolve, fmt.Sprintf("superseding note %s deleted", deleted.ID), &old)); err != nil {
			return err
		}
		if err := m.recordEvent(tx, next, amem.EventEvolved); err != nil {
			return err
		}
	}
	return nil
}

// asOfFilter narrows a search's filter to what was current at the
// request's time: AsOf leaves out the notes said after it (event time
// at most AsOf), ExcludeSuperseded the notes no longer true then.
func asOfFilter(req amem.SearchRequest, f amem.Filter, now time.Time) amem.Filter {
	if !req.AsOf.IsZero() {
		to := req.AsOf.Add(time.Nanosecond)
		if f.To.IsZero() || to.Before(f.To) {
			f.To = to
		}
	}
	if req.ExcludeSuperseded {
		f.ValidAt = searchTime(req, now)
	}
	return f
}

// searchTime is the time a search answers for: AsOf, or now.
func searchTime(req amem.SearchRequest, now time.Time) time.Time {
	if !req.AsOf.IsZero() {
		return req.AsOf
	}
	return now
}

// maxSupersessionChain bounds how many superseding notes a search follows
// from one hit ("Boston" superseded by "Seattle" superseded by "Denver"):
// a chain is a handful of notes in practice, and the bound keeps a
// pathological one (or a cycle a caller made) from costing a read per
// link.
const maxSupersessionChain = 8

// currentFirst puts, before each direct hit no longer true at the
// search's time, the notes that superseded it (newest first), each with
// the hit's score, unless one is listed already above it: so a superseded
// note ranks right below what replaced it when both are hits, and a
// search that finds only the old belief shows the current one above it.
// It rewrites the hits one at a time in order, each step depending only
// on the hits before, so the first n are the same for any K of n or more
// (the rewrite of the first K hits is a prefix of the rewrite of more).
// A hit whose content is the query (exact) keeps its place, first, as
// every search promises; what superseded it follows right after it.
// byID holds the hits' notes; the superseding notes it loads are added
// to it. A superseding note the filter drops is not brought in.
func (m *Memory) currentFirst(tx amem.Tx, ns string, hits []amem.Scored, exact []string, byID map[string]amem.Note, p searchPlan) ([]amem.Scored, error) {
	superseded := false
	for _, h := range hits {
		if n, ok := byID[h.ID]; ok && n.SupersededBy != "" && !n.ValidAt(p.at) {
			superseded = true
			break
		}
	}
	if !superseded {
		return hits, nil
	}
	out := make([]amem.Scored, 0, len(hits)+1)
	listed := make(map[string]bool, len(hits))
	for _, h := range hits {
		if listed[h.ID] {
			continue
		}
		var chain []string // the superseding notes, oldest first
		for n, ok := byID[h.ID]; ok && n.SupersededBy != "" && !n.ValidAt(p.at) && len(chain) < maxSupersessionChain; {
			by := n.SupersededBy
			if by == h.ID || listed[by] || slices.Contains(chain, by) || (p.allow != nil && !p.allow[by]) {
				break
			}
			if _, ok = byID[by]; !ok {
				loaded, err := tx.NotesWithoutEmbeddings(ns, []string{by})
				if err != nil {
					return nil, err
				}
				for _, l := range loaded {
					byID[l.ID] = l
				}
			}
			if n, ok = byID[by]; !ok || n.ValidFrom().After(p.at) {
				break // deleted, or said after the search's time
			}
			chain = append(chain, by)
		}
		own := slices.Contains(exact, h.ID)
		if own {
			listed[h.ID] = true
			out = append(out, h)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			if !listed[chain[i]] {
				listed[chain[i]] = true
				out = append(out, search.Hit{ID: chain[i], Score: h.Score})
			}
		}
		if !own {
			listed[h.ID] = true
			out = append(out, h)
		}
	}
	if len(out) > p.k {
		out = out[:p.k]
	}
	return out, nil
}

// asOfView is a result's note as it was at an AsOf search's time: a
// supersession that came later is not shown.
func asOfView(n amem.Note, req amem.SearchRequest) amem.Note {
	if !req.AsOf.IsZero() && !n.ValidUntil.IsZero() && n.ValidAt(req.AsOf) {
		n.ValidUntil, n.SupersededBy = time.Time{}, ""
	}
	return n
}
