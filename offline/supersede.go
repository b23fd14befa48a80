package offline

import "github.com/amem-dev/amem"

// supersede asks Options.Supersedes about each candidate, in the
// candidates' order; without it, none is superseded.
func (c *Curator) supersede(note amem.Note, cs []*scored) []amem.Supersession {
	if c.opt.Supersedes == nil {
		return nil
	}
	var out []amem.Supersession
	for _, s := range cs {
		if reason, ok := c.opt.Supersedes(note, *s.cand); ok {
			out = append(out, amem.Supersession{Target: s.cand.Note.ID, Reason: reason})
		}
	}
	return out
}
