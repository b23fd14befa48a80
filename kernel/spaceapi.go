package kernel

import (
	"github.com/amem-dev/amem/index"
	"github.com/amem-dev/amem/index/hnsw"
	"github.com/amem-dev/amem/lexindex"
	"github.com/amem-dev/amem/search/conversation"
)

// What a search reads of a namespace's space: every method takes the
// space's read lock itself, so a search holds none between them. A space
// that was evicted stays valid for the searches that hold it.

// Namespace is the namespace the space indexes.
func (s *Space) Namespace() string { return s.ns }

// Search returns the k notes nearest query by cosine, best first, among
// those allow holds (all if nil), except the note except.
func (s *Space) Search(query []float32, k int, allow map[string]bool, except string, rerank hnsw.Rerank) ([]index.Hit, error) {
	return s.search(query, k, allow, except, rerank)
}

// SearchText returns the k best notes for query by BM25, among those allow
// passes (all if nil).
func (s *Space) SearchText(query string, k int, allow func(string) bool) []lexindex.Hit {
	return s.searchText(query, k, allow)
}

// Similarities returns each of ids' cosine to q, as Search scores it (0
// for a note without a vector).
func (s *Space) Similarities(q []float32, ids []string, rerank hnsw.Rerank) ([]float32, error) {
	sims := make([]float32, len(ids))
	ok := make([]bool, len(ids))
	s.mu.RLock()
	defer s.mu.RUnlock()
	err := s.idx.similarities(q, ids, sims, ok, rerank)
	return sims, err
}

// Shares returns each of ids' full-text share of q (lexindex.Query.Share).
func (s *Space) Shares(q string, ids []string) []float64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rq := s.lex.Resolve(q)
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = rq.Share(s.lex.Score(rq, id))
	}
	return out
}

// SameContent returns the notes whose content is q (allow passing them).
func (s *Space) SameContent(q string, allow func(string) bool) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lex.SameContent(s.lex.Resolve(q), allow)
}

// ReadText runs fn with the full-text index, read-locked.
func (s *Space) ReadText(fn func(*lexindex.Index)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	fn(s.lex)
}

// Turns counts the space's dialogue turns and its notes (the profile's
// choice).
func (s *Space) Turns() (turns, notes int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lex.WithTraits(conversation.Turn), s.lex.Len()
}
