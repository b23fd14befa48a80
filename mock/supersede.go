package mock

import (
	"context"

	"github.com/amem-dev/amem"
)

// Superseder is a curator that stands in for a model's judgement of
// supersession: it links the new note to every candidate, and supersedes
// each candidate that Supersedes says the new note makes no longer true,
// with the reason it gives. A nil Supersedes supersedes nothing.
type Superseder struct {
	Supersedes func(note, old amem.Note) (reason string, ok bool)
}

var _ amem.Curator = (*Superseder)(nil)

func (s *Superseder) Construct(ctx context.Context, note amem.Note) (amem.Attributes, error) {
	return amem.Attributes{}, nil
}

func (s *Superseder) Connect(ctx context.Context, note amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	var d amem.Decision
	for _, c := range cands {
		d.Links = append(d.Links, amem.LinkDecision{Target: c.Note.ID, Reason: "nearby", Strength: c.Similarity})
		if s.Supersedes == nil {
			continue
		}
		if reason, ok := s.Supersedes(note, c.Note); ok {
			d.Supersede = append(d.Supersede, amem.Supersession{Target: c.Note.ID, Reason: reason})
		}
	}
	return d, nil
}
