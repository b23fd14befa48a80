package enrich

import (
	"errors"
	"fmt"

	"github.com/amem-dev/amem"
)

// Supersession (issue 30): a new note can make an old one no longer true.
// The curator decides it (amem.Decision.Supersede), the engine applies it
// to notes the curator was shown; a caller's word (Note.CallerValidity)
// wins over the curator's. Both notes always stay.

// supersession is a curator's supersession of a shown candidate, checked
// against what it was shown and waiting for apply.
type supersession struct {
	target   string
	reason   string
	strength float64 // of the link from the new note to the old
}

// planSupersessions keeps the curator's supersessions of candidates it
// was shown; the others are dropped and logged, as links to notes not
// shown are. A candidate whose event time is after the new note's is
// dropped too: a note can only end the validity of what came before it
// (an old conversation imported late must not supersede today's facts).
func (e *Engine) planSupersessions(p *plan, n amem.Note, dec amem.Decision, cands []amem.Candidate) {
	if len(dec.Supersede) == 0 {
		return
	}
	shown := make(map[string]amem.Candidate, len(cands))
	for _, c := range cands {
		shown[c.Note.ID] = c
	}
	seen := make(map[string]bool)
	for _, s := range dec.Supersede {
		c, ok := shown[s.Target]
		if !ok {
			e.log.Warn("curator superseded a note it was not shown; dropped", "namespace", n.Namespace, "note", n.ID, "target", s.Target)
			continue
		}
		if seen[s.Target] {
			continue
		}
		seen[s.Target] = true
		if c.Note.EventTime.After(n.ValidFrom()) {
			e.log.Info("curator superseded a later note; dropped", "namespace", n.Namespace, "note", n.ID, "target", s.Target)
			continue
		}
		strength := clamp01(c.Similarity)
		for _, l := range p.links {
			if l.Target == s.Target {
				strength = l.Strength
			}
		}
		p.supersede = append(p.supersede, supersession{target: s.Target, reason: cleanText(s.Reason, maxReasonBytes), strength: strength})
	}
}

// applySupersessions writes a plan's supersessions in apply's
// transaction, after the note's links were replaced. cur is the note as
// read in that transaction, before: the supersedes links it had and
// still stands by (a re-enrichment whose curator says nothing of them)
// are put back, since the old notes still name it. The curator's word
// never overrides the caller's (CallerValidity) nor another note's
// earlier supersession.
func (e *Engine) applySupersessions(tx amem.Tx, note, cur amem.Note, p *plan) error {
	ns := note.Namespace
	done := make(map[string]bool)
	for _, s := range p.supersede {
		old, err := tx.Note(ns, s.target)
		if errors.Is(err, amem.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if old.CallerValidity || (old.SupersededBy != "" && old.SupersededBy != note.ID) || old.EventTime.After(note.ValidFrom()) {
			continue
		}
		link := amem.Link{Source: note.ID, Target: old.ID, Reason: s.reason, Strength: s.strength, CreatedAt: note.UpdatedAt, Kind: amem.LinkSupersedes}
		if err := tx.PutLink(ns, link); err != nil {
			return err
		}
		done[old.ID] = true
		if old.SupersededBy == note.ID {
			continue // a re-enrichment deciding it again
		}
		next := old.Clone()
		next.ValidUntil, next.SupersededBy = note.ValidFrom(), note.ID
		next.Version = old.Version + 1
		next.UpdatedAt = note.UpdatedAt
		if err := tx.UpdateNote(next, old.Version); err != nil {
			return err
		}
		reason := fmt.Sprintf("superseded by new note %s", note.ID)
		if s.reason != "" {
			reason += ": " + s.reason
		}
		if err := tx.AddVersion(amem.NewVersion(next, amem.ActorEvolve, reason, &old)); err != nil {
			return err
		}
		if err := amem.RecordEvent(tx, next, amem.EventEvolved, e.c.Now()); err != nil {
			return err
		}
	}
	for _, l := range cur.Links {
		if l.Kind != amem.LinkSupersedes || l.Source != note.ID || done[l.Target] {
			continue
		}
		old, err := tx.Note(ns, l.Target)
		if errors.Is(err, amem.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if old.SupersededBy != note.ID {
			continue // the caller restored it, or named another note
		}
		if err := tx.PutLink(ns, l); err != nil {
			return err
		}
	}
	return nil
}
