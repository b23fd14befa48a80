package local

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/uselite"
)

// deferredModel is use-lite loaded at its first Embed (Config.DeferEmbedder).
// Its name and width are the pinned model's, known without the weights,
// so a Memory can check namespaces against it and serve reads with the
// model never read. It is safe for concurrent use: callers of the first
// Embed wait for one load.
type deferredModel struct {
	dir string
	log io.Writer

	mu    sync.Mutex
	model *uselite.Model
}

var _ amem.Embedder = (*deferredModel)(nil)

func (d *deferredModel) Name() string    { return uselite.ModelName }
func (d *deferredModel) Dimensions() int { return uselite.Dimensions }

func (d *deferredModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m, err := d.load(ctx)
	if err != nil {
		return nil, err
	}
	return m.Embed(ctx, texts)
}

// load loads the model once. A failed load is not kept: it may have been
// a cancelled download, and the next call tries again.
func (d *deferredModel) load(ctx context.Context) (*uselite.Model, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.model != nil {
		return d.model, nil
	}
	m, err := uselite.Ensure(ctx, d.dir, d.log)
	if err != nil {
		return nil, err
	}
	// The files are pinned by their sums, so this only fails if the
	// constant and the pinned package part ways.
	if m.Dimensions() != uselite.Dimensions {
		return nil, fmt.Errorf("uselite: the model gives %d-dimension vectors, uselite.Dimensions says %d", m.Dimensions(), uselite.Dimensions)
	}
	d.model = m
	return m, nil
}
