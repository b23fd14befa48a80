package memory

import (
	"context"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
)

// Enrichment is package enrich's (construction, links, evolution,
// supersession, claims, the workers' loop); these are the Memory's entry
// points to it.

// RestatementReason begins the reason of a link from a note to the older
// note it restates.
const RestatementReason = enrich.RestatementReason

// DefaultRestatementSimilarity is the cosine at or above which a note and
// its nearest neighbour are compared as a possible restatement.
const DefaultRestatementSimilarity = enrich.DefaultRestatementSimilarity

// EnrichError is returned by Enrich when the curator (or an embedder call
// it needed) failed: the note is stored, searchable and marked failed.
type EnrichError = enrich.Error

// Enrich runs the A-Mem pipeline on a stored note: construct its keywords,
// tags and context; embed it; show its nearest notes to the curator; apply
// the links and neighbour evolutions the curator decides, re-embedding the
// changed neighbours, all in one transaction. It retries failed notes and
// re-enriches done ones.
//
// A curator error marks the note failed (still stored and searchable) and
// is returned. Curator output naming notes it was not shown is dropped
// and logged.
func (m *Memory) Enrich(ctx context.Context, ns, id string) (amem.Note, error) {
	if m.opts.Curator == nil {
		return m.Get(ctx, ns, id)
	}
	return m.enr.Enrich(ctx, ns, id)
}

// EnrichPending enriches up to limit notes of the namespace that are
// pending or failed (the retry path of `amem enrich --retry`), oldest
// first. It returns how many succeeded and the first error; it goes on
// past failures.
func (m *Memory) EnrichPending(ctx context.Context, ns string, limit int) (done, failed int, err error) {
	if err := amem.ValidNamespace(ns); err != nil {
		return 0, 0, err
	}
	return m.enr.EnrichPending(ctx, ns, limit)
}
