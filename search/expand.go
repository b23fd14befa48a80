package search

import "github.com/amem-dev/amem"

// LinkOrder is where linked notes go in a context list (amem.LinkOrder).
type LinkOrder = amem.LinkOrder

const (
	LinksAfter       = amem.LinksAfter
	LinksInterleaved = amem.LinksInterleaved
)

// Link is one of a note's links as expansion reads it: the note at its
// other end and its strength.
type Link struct {
	Other    string
	Strength float64
}

// Entry is one place of a context list: a direct hit (Via "") or a note
// linked to the direct hit Via, scored by its link's strength.
type Entry struct {
	ID    string
	Score float64
	Via   string
}

// Expansion is the retrieval policy of the linked notes.
type Expansion struct {
	// PerHit linked notes at most follow each direct hit, Budget in all;
	// neither when not above 0.
	PerHit, Budget int
	Order          LinkOrder
	// Allow, if not nil, must pass a linked note: a search's filter.
	Allow func(id string) bool
}

// Expand returns the context list of hits: the direct hits in rank
// order; each brings up to PerHit of its links' notes (links gives them,
// strongest first) that are not already in the list, until Budget
// linked notes have been added, after all direct hits (LinksAfter) or
// right after the hit that brought them (LinksInterleaved). A hit whose
// links says it is gone (deleted since it was ranked) is left out.
// Every direct hit is in the list: the reference code truncated after
// adding links, so links vanished exactly when there were enough hits.
func (x Expansion) Expand(hits []Hit, links func(id string) ([]Link, bool)) []Entry {
	in := make(map[string]bool, len(hits))
	for _, h := range hits {
		in[h.ID] = true
	}
	var out, after []Entry
	used := 0
	for _, h := range hits {
		ls, ok := links(h.ID)
		if !ok {
			continue
		}
		out = append(out, Entry{ID: h.ID, Score: h.Score})
		taken := 0
		for _, l := range ls {
			if taken >= x.PerHit || used >= x.Budget {
				break
			}
			if in[l.Other] || x.Allow != nil && !x.Allow(l.Other) {
				continue
			}
			in[l.Other] = true
			taken++
			used++
			e := Entry{ID: l.Other, Score: l.Strength, Via: h.ID}
			if x.Order == LinksInterleaved {
				out = append(out, e)
			} else {
				after = append(after, e)
			}
		}
	}
	return append(out, after...)
}
