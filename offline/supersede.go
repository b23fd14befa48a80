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

// FactSupersedes is the offline rule of issue 30 (internal/facts, v6: a
// flipped negation, a cue of an end or a change of the older note's own
// words, a new value for the same slot of the same thing), as an
// Options.Supersedes; the product's offline curator uses it with use-lite
// (local.NewCurator). On the candidates the curator is really shown in a
// store (eval/testdata/supersede/neighbours.jsonl) it scores 0.93 on
// round 5, the fresh test written for it, and 0.97 on the held-out half
// of the pairs written as updates (docs/EVALUATION.md, Round 5): it
// prefers silence, since a store holds many facts about one user, and a
// fact with a time, an amount or a cue word can read as an update of
// another ("The Manchester return went up to £72" is no news of "The
// plumber quoted £450"). Its cosine floors were set for use-lite's
// vectors. Dialogue turns ("Speaker: text") are left alone: a turn
// reports what was said, and a later turn saying otherwise does not make
// the earlier one unsaid.
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
