package offline

import (
	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/facts"
)

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

// FactSupersedes is the offline rule of issue 30 (internal/facts: a flipped
// negation, a cue of an end or a change, a new value for the same slot of
// the same subject), as an Options.Supersedes, for callers who choose it;
// the product does not. It scores 0.93 precision on labelled pairs, but a
// store holds many facts about one user: over the agent set's 532
// memories it superseded 26 notes, every one wrongly ("The team standup
// is at 9:15 every weekday" by "Picks the kids up from school at 3:30 on
// weekdays"). Its cosine floor was set for use-lite's vectors. Dialogue turns
// ("Speaker: text") are left alone: a turn reports what was said, and a
// later turn saying otherwise does not make the earlier one unsaid.
func FactSupersedes(note amem.Note, cand amem.Candidate) (string, bool) {
	if sp, _ := splitSpeaker(note.Content); sp != "" {
		return "", false
	}
	if sp, _ := splitSpeaker(cand.Note.Content); sp != "" {
		return "", false
	}
	ok, reason := facts.Supersedes(
		facts.Note{Text: cand.Note.Content, Time: cand.Note.EventTime},
		facts.Note{Text: note.Content, Time: note.EventTime},
		cand.Similarity)
	return reason, ok
}
