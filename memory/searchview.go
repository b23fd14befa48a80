package memory

import (
	"context"

	"github.com/amem-dev/amem"

	"github.com/amem-dev/amem/index/hnsw"
	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/search"
	"github.com/amem-dev/amem/search/conversation"
)

// searchView is one namespace's Space as a search reads it: its indexes,
// caught up with every change committed before the search began, with
// the search's filter applied, and the query's embedding on its way. It
// is package search's Namespace and package conversation's Source. An
// evicted Space stays valid for the searches using it, so a search reads
// one state of the indexes from its first ranking to its last measure.
type searchView struct {
	m      *Memory
	ctx    context.Context
	s      *kernel.Space
	allow  map[string]bool   // nil: all
	filter func(string) bool // allow as a function; nil: all
	rerank hnsw.Rerank
	emb    *queryEmbedding // nil: the mode reads no vectors
}

// openView starts embedding the query (unless the mode reads no vectors)
// and, meanwhile, catches the namespace's indexes up. close stops the
// embedding if it still runs.
func (m *Memory) openView(ctx context.Context, ns string, p searchPlan) (*searchView, error) {
	v := &searchView{m: m, ctx: ctx, allow: p.allow, rerank: m.k.Rerank(ctx, ns)}
	if p.allow != nil {
		v.filter = func(id string) bool { return p.allow[id] }
	}
	if p.mode != amem.SearchLexical {
		// One text is one core's work (a millisecond on the offline
		// default, a round trip on a remote embedder), and neither the
		// catch-up nor the full-text ranking needs it.
		v.emb = m.startEmbedding(ctx, p.q)
	}
	s, err := m.k.Fresh(ctx, ns)
	if err != nil {
		v.close()
		return nil, err
	}
	v.s = s
	return v, nil
}

func (v *searchView) close() {
	if v.emb != nil {
		v.emb.stop()
	}
}

// embedding waits for the query's embedding (search.Embedding).
func (v *searchView) embedding() ([]float32, error) {
	if v.emb == nil {
		return nil, invalidf("this search embeds no query")
	}
	return v.emb.wait()
}

func (v *searchView) Vectors(q []float32, k int) ([]search.Hit, error) {
	_, span := v.m.startSpan(v.ctx, "amem.search.vectors", attrCandidates.Int(k))
	hits, err := v.s.Search(q, k, v.allow, "", v.rerank)
	endSpan(span, err)
	if err != nil {
		return nil, err
	}
	out := make([]search.Hit, len(hits))
	for i, h := range hits {
		out[i] = search.Hit{ID: h.ID, Score: float64(h.Score)}
	}
	return out, nil
}

func (v *searchView) Text(q string, k int) []search.Hit {
	_, span := v.m.startSpan(v.ctx, "amem.search.text", attrCandidates.Int(k))
	defer span.End()
	hits := v.s.SearchText(q, k, v.filter)
	out := make([]search.Hit, len(hits))
	for i, h := range hits {
		out[i] = search.Hit{ID: h.ID, Score: h.Score}
	}
	return out
}

func (v *searchView) Cosines(q []float32, ids []string) ([]float64, error) {
	sims, err := v.s.Similarities(q, ids, v.rerank)
	out := make([]float64, len(sims))
	for i, c := range sims {
		out[i] = float64(c)
	}
	return out, err
}

func (v *searchView) Shares(q string, ids []string) []float64 { return v.s.Shares(q, ids) }

func (v *searchView) SameContent(q string) []string { return v.s.SameContent(q, v.filter) }

func (v *searchView) Turns() (turns, notes int) { return v.s.Turns() }

// ReadText runs fn with the full-text index, read-locked
// (conversation.Source).
func (v *searchView) ReadText(fn func(*lexindex.Index)) { v.s.ReadText(fn) }

// Embeddings reads the notes' embeddings from the store, in ids' order
// (conversation.Source: dense feedback reads the first hits').
func (v *searchView) Embeddings(ctx context.Context, ids []string) ([][]float32, error) {
	out := make([][]float32, len(ids))
	err := v.m.view(ctx, func(tx amem.Tx) error {
		notes, err := tx.Notes(v.s.Namespace(), ids)
		if err != nil {
			return err
		}
		at := make(map[string]int, len(ids))
		for i, id := range ids {
			at[id] = i
		}
		for _, n := range notes {
			if i, ok := at[n.ID]; ok {
				out[i] = n.Embedding
			}
		}
		return nil
	})
	return out, err
}

var (
	_ search.Namespace    = (*searchView)(nil)
	_ conversation.Source = (*searchView)(nil)
)
