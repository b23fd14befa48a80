package offline

import (
	"math"
	"sync"
)

// corpusStats are the running document frequencies of one namespace. They
// let the curator damp words that every note of a namespace uses (a
// speaker's own name, "kids" in a parenting chat) without a corpus shipped
// with the binary. They live in process memory only: a fresh process starts
// cold and warms up as notes arrive, so keyword ranking of the first few
// dozen notes leans on the embedding alone.
type corpusStats struct {
	docs  int
	df    map[string]int
	names map[string]nameKind // lower-cased tokens seen as proper nouns
	used  uint64              // last use, for least-recently-used eviction
}

// statsTable holds corpusStats per namespace, bounded in namespaces and in
// terms per namespace so that a long-lived process can't grow without limit.
// Eviction and the term cap depend only on the order of calls, so results
// stay deterministic for a given call sequence.
type statsTable struct {
	mu       sync.Mutex
	byNS     map[string]*corpusStats
	clock    uint64
	maxNS    int
	maxTerms int
}

func newStatsTable(maxNS, maxTerms int) *statsTable {
	return &statsTable{byNS: make(map[string]*corpusStats), maxNS: maxNS, maxTerms: maxTerms}
}

// nameKind says how a name has been seen in a namespace.
type nameKind uint8

const (
	properNoun  nameKind = 1 << iota // written as a proper noun
	speakerName                      // a speaker of a "Name: text" note
	addressee                        // addressed by name ("Hey Mel!")
)

// observation is what one note contributes to its namespace's statistics.
type observation struct {
	terms      []string // distinct lower-cased words
	names      []string // lower-cased tokens used as proper nouns
	speakers   []string // lower-cased words of the note's speaker
	addressees []string // lower-cased names the note addresses
}

// termView is a read-only snapshot of what the scorer needs, taken under the
// lock so that scoring runs without it.
type termView struct {
	docs  int
	df    map[string]int
	names map[string]nameKind
}

// peek returns what scoring needs for the terms in ask as if obs, one more
// note of namespace ns, had already been counted. It changes nothing, so a
// note whose construction fails (the embedder is down) is not counted twice
// when it is retried.
func (t *statsTable) peek(ns string, obs observation, ask []string) termView {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := termView{docs: 1, df: make(map[string]int, len(ask)), names: make(map[string]nameKind)}
	for _, n := range obs.names {
		v.names[n] |= properNoun
	}
	for _, n := range obs.speakers {
		v.names[n] |= speakerName
	}
	for _, n := range obs.addressees {
		v.names[n] |= addressee
	}
	for _, w := range obs.terms {
		v.df[w] = 1
	}
	s := t.byNS[ns]
	if s == nil {
		return v
	}
	v.docs += s.docs
	for _, w := range ask {
		v.df[w] += s.df[w]
		v.names[w] |= s.names[w]
	}
	return v
}

// commit counts obs as one more note of namespace ns.
func (t *statsTable) commit(ns string, obs observation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clock++
	s := t.byNS[ns]
	if s == nil {
		if len(t.byNS) >= t.maxNS {
			t.evictLocked()
		}
		s = &corpusStats{df: make(map[string]int), names: make(map[string]nameKind)}
		t.byNS[ns] = s
	}
	s.used = t.clock
	s.docs++
	for _, w := range obs.terms {
		if _, ok := s.df[w]; ok || len(s.df) < t.maxTerms {
			s.df[w]++
		}
	}
	addName := func(n string, k nameKind) {
		if _, ok := s.names[n]; ok || len(s.names) < t.maxTerms {
			s.names[n] |= k
		}
	}
	for _, n := range obs.names {
		addName(n, properNoun)
	}
	for _, n := range obs.speakers {
		addName(n, speakerName)
	}
	for _, n := range obs.addressees {
		addName(n, addressee)
	}
}

func (t *statsTable) evictLocked() {
	var victim string
	var oldest uint64 = math.MaxUint64
	for ns, s := range t.byNS {
		if s.used < oldest { // used values are unique, so the victim is too
			oldest, victim = s.used, ns
		}
	}
	delete(t.byNS, victim)
}

// idf returns w's inverse document frequency normalised to (0, 1]: 1 for a
// word only this note uses, falling towards 1/(1+ln((1+N)/2)) for a word
// every note uses. With one note every word scores 1, so a cold namespace
// ranks by embedding alone.
func (v termView) idf(w string) float64 {
	df := v.df[w]
	if df < 1 {
		df = 1 // the term cap was hit: treat as rare
	}
	n := float64(v.docs)
	idf := math.Log((1+n)/(1+float64(df))) + 1
	top := math.Log((1+n)/2) + 1
	return clamp(idf/top, 0, 1)
}

func (v termView) knownName(w string) bool {
	return v.names[w] != 0
}

// knownPerson reports whether w has been a speaker or been addressed.
func (v termView) knownPerson(w string) bool {
	return v.names[w]&(speakerName|addressee) != 0
}
