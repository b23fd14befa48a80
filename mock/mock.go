// Package mock has fakes of amem's interfaces with func fields, for tests.
package mock

import (
	"context"

	"github.com/amem-dev/amem"
)

// Curator calls its funcs; a nil func returns the zero value.
type Curator struct {
	ConstructFunc func(ctx context.Context, note amem.Note) (amem.Attributes, error)
	ConnectFunc   func(ctx context.Context, note amem.Note, cands []amem.Candidate) (amem.Decision, error)
}

var _ amem.Curator = (*Curator)(nil)

func (c *Curator) Construct(ctx context.Context, note amem.Note) (amem.Attributes, error) {
	if c.ConstructFunc == nil {
		return amem.Attributes{}, nil
	}
	return c.ConstructFunc(ctx, note)
}

func (c *Curator) Connect(ctx context.Context, note amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	if c.ConnectFunc == nil {
		return amem.Decision{}, nil
	}
	return c.ConnectFunc(ctx, note, cands)
}

// Embedder calls EmbedFunc and reports the given name and dimensions.
type Embedder struct {
	EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)
	Dims      int
	ModelName string
}

var _ amem.Embedder = (*Embedder)(nil)

func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.EmbedFunc(ctx, texts)
}
func (e *Embedder) Dimensions() int { return e.Dims }
func (e *Embedder) Name() string    { return e.ModelName }
