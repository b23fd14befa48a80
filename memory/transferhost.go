package memory

import (
	"context"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/transfer"
)

// transferHost is the Memory as package transfer sees it (transfer.Host):
// its store behind the closed check, its new notes' checks, its
// embedder, its kernel, its clock and its enrichment. A type of its own
// so that these stay out of Memory's methods.
type transferHost struct{ m *Memory }

func (h transferHost) View(ctx context.Context, fn func(amem.Tx) error) error {
	return h.m.view(ctx, fn)
}

func (h transferHost) NewNote(req amem.AddRequest) (amem.Note, error) { return h.m.newNote(req) }
func (h transferHost) CheckContent(content string) error              { return h.m.validContent(content) }

func (h transferHost) Embedder() amem.Embedder { return h.m.opts.Embedder }

func (h transferHost) EmbedNotes(ctx context.Context, notes []amem.Note) error {
	return h.m.embedNotes(ctx, notes)
}

func (h transferHost) Update(ctx context.Context, fn func(amem.Tx) error) error {
	return h.m.update(ctx, fn)
}

func (h transferHost) EnsureNamespace(tx amem.Tx, ns string) error {
	return h.m.ensureNamespace(tx, ns)
}

func (h transferHost) Advance(ctx context.Context, nss ...string) { h.m.k.Advance(ctx, nss...) }
func (h transferHost) Now() time.Time                             { return h.m.opts.Now() }

func (h transferHost) EnrichNew(ctx context.Context, notes []amem.Note) {
	h.m.enrichNew(ctx, notes, nil)
}

func (h transferHost) MaxAttempts() int { return h.m.opts.Enrich.MaxAttempts }

var _ transfer.Host = transferHost{}
