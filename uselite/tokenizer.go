package uselite

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// wordSeparator is SentencePiece's visible space (U+2581 LOWER ONE EIGHTH
// BLOCK). Pieces that begin a word start with it.
const wordSeparator = '\u2581'

// reservedPieces is how many leading vocabulary entries (<unk>, <s>, </s>
// and three extra ids) the reference never matches against text.
const reservedPieces = 6

// unknownID is the id of the unknown piece. The reference emits it for a
// character that starts no vocabulary piece and collapses runs of it.
const unknownID = 0

// tokenizer is a SentencePiece unigram tokenizer that reproduces the
// reference JavaScript tokenizer (@energetic-ai/embeddings, itself a copy of
// the tfjs-models universal-sentence-encoder tokenizer) bit for bit,
// including its quirks: ties between segmentations go to the one whose last
// piece is shortest, a running score of exactly 0 counts as "unset", and the
// backtrack steps by each chosen piece's UTF-16 length.
type tokenizer struct {
	// edges maps (node<<32 | rune) to the child node of a character trie
	// over the pieces; node 0 is the root. One map keyed by a packed integer
	// keeps the trie compact and a lookup allocation-free.
	edges map[uint64]int32
	// pieceAt[node] is the vocabulary id of the piece that ends at node, or
	// -1. When the vocabulary lists a piece twice the later id wins, as in
	// the reference trie.
	pieceAt []int32
	// score[id] is the piece's log probability (null in the JSON counts as
	// 0, as JavaScript's null + x == x).
	score []float64
	// len16[id] is the piece's length in UTF-16 code units: the reference
	// walks back over the lattice by vocabulary[id].length.
	len16 []int32
	// vocabSize is the number of pieces.
	vocabSize int
	// prefixSafe is true when the tokens of a text cut just before a space
	// are exactly the first tokens of the whole text: no piece holds the
	// separator after its first character (so no piece spans a space and
	// every segmentation passes through the position before it) and the
	// separator alone is a piece (so it is never unknown and never merges
	// with an unknown run before it).
	prefixSafe bool
	// maxTokens is how many tokens the model reads (0: all).
	maxTokens int
}

// tokScratch is per-worker scratch memory so that encoding allocates
// nothing once the buffers have grown to the longest text seen.
type tokScratch struct {
	norm    []byte
	symbols []rune
	lattice []latticeEdge
	byEnd   []int32 // edge indexes bucketed by end position
	endOff  []int32 // bucket offsets into byEnd, len(symbols)+2
	best    []float64
	words   []int32
	ids     []int32
}

type latticeEdge struct {
	start, end int32
	id         int32
	score      float64
}

// parseVocab reads vocab.json: a JSON array of [piece, score] pairs.
func parseVocab(data []byte) (*tokenizer, error) {
	// Entries are [piece, score]; a score may be null.
	var raw [][]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse vocabulary: %w", err)
	}
	if len(raw) <= reservedPieces {
		return nil, fmt.Errorf("parse vocabulary: only %d pieces", len(raw))
	}
	t := &tokenizer{
		edges:      make(map[uint64]int32, 4*len(raw)),
		pieceAt:    []int32{-1},
		score:      make([]float64, len(raw)),
		len16:      make([]int32, len(raw)),
		vocabSize:  len(raw),
		prefixSafe: true,
	}
	for id, pair := range raw {
		if len(pair) != 2 {
			return nil, fmt.Errorf("parse vocabulary entry %d: want [piece, score]", id)
		}
		piece, ok := pair[0].(string)
		if !ok {
			return nil, fmt.Errorf("parse vocabulary entry %d: the piece is not a string", id)
		}
		switch sc := pair[1].(type) {
		case float64:
			t.score[id] = sc
		case nil:
			// null: 0, as JavaScript's null + x == x
		default:
			return nil, fmt.Errorf("parse vocabulary entry %d: the score is not a number", id)
		}
		t.len16[id] = int32(utf16Len(piece))
		if id < reservedPieces || piece == "" {
			continue
		}
		node := int32(0)
		for k, r := range piece {
			if r == wordSeparator && k > 0 {
				t.prefixSafe = false
			}
			key := uint64(node)<<32 | uint64(uint32(r))
			child, ok := t.edges[key]
			if !ok {
				child = int32(len(t.pieceAt))
				t.pieceAt = append(t.pieceAt, -1)
				t.edges[key] = child
			}
			node = child
		}
		t.pieceAt[node] = int32(id)
	}
	if child, ok := t.edges[uint64(wordSeparator)]; !ok || t.pieceAt[child] < 0 {
		t.prefixSafe = false
	}
	return t, nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// normalize appends the reference's view of text to dst as code points:
// NFKC, then (for non-empty text) a leading separator and every U+0020
// replaced by the separator. Other whitespace (tabs, newlines, runs of
// spaces) is kept as is, exactly as the reference does. Bytes that are not
// valid UTF-8 become U+FFFD, one per byte, which the vocabulary does not
// hold, so they end up as the unknown piece.
func (s *tokScratch) normalize(text string) []rune {
	src := text
	if !utf8.ValidString(src) {
		src = toValidUTF8(text)
	}
	s.norm = norm.NFKC.AppendString(s.norm[:0], src)
	s.symbols = s.symbols[:0]
	if len(s.norm) == 0 {
		return s.symbols
	}
	s.symbols = append(s.symbols, wordSeparator)
	for b := s.norm; len(b) > 0; {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r == ' ' {
			r = wordSeparator
		}
		s.symbols = append(s.symbols, r)
	}
	return s.symbols
}

func toValidUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, r) // RuneError for an invalid byte
		i += size
	}
	return string(b)
}

// encode returns the piece ids of text. The slice is scratch memory, valid
// until the next call with the same scratch.
func (t *tokenizer) encode(text string, s *tokScratch) []int32 {
	sym := s.normalize(text)
	n := len(sym)
	s.ids = s.ids[:0]
	if n == 0 {
		return s.ids
	}

	// Lattice: every vocabulary piece that starts at each position, found
	// by walking the trie (the reference's commonPrefixSearch). A position
	// where nothing matches gets a one-character unknown piece of score 0.
	s.lattice = s.lattice[:0]
	for i := 0; i < n; i++ {
		found := false
		node := int32(0)
		for j := i; j < n; j++ {
			child, ok := t.edges[uint64(node)<<32|uint64(uint32(sym[j]))]
			if !ok {
				break
			}
			node = child
			if id := t.pieceAt[node]; id >= 0 {
				s.lattice = append(s.lattice, latticeEdge{int32(i), int32(j + 1), id, t.score[id]})
				found = true
			}
		}
		if !found {
			s.lattice = append(s.lattice, latticeEdge{int32(i), int32(i + 1), unknownID, 0})
		}
	}

	// Bucket the edges by end position, keeping start order (a stable
	// counting sort): the reference visits nodes[end] in ascending start.
	s.endOff = growInt32(s.endOff, n+2)
	clear(s.endOff)
	for _, e := range s.lattice {
		s.endOff[e.end+1]++
	}
	for i := 1; i < len(s.endOff); i++ {
		s.endOff[i] += s.endOff[i-1]
	}
	s.byEnd = growInt32(s.byEnd, len(s.lattice))
	for k, e := range s.lattice {
		s.byEnd[s.endOff[e.end]] = int32(k)
		s.endOff[e.end]++
	}
	// endOff[e] now holds the end of bucket e; bucket e starts at endOff[e-1].

	s.best = growFloat64(s.best, n+1)
	s.words = growInt32(s.words, n+1)
	clear(s.best)
	clear(s.words)
	for end := 1; end <= n; end++ {
		lo := s.endOff[end-1]
		hi := s.endOff[end]
		for _, k := range s.byEnd[lo:hi] {
			e := &s.lattice[k]
			score := e.score + s.best[e.start]
			if s.best[end] == 0 || score >= s.best[end] {
				s.best[end] = score
				s.words[end] = e.id
			}
		}
	}

	// Walk back from the end, then drop an unknown that follows an unknown
	// and reverse (the reference merges in reverse order; runs collapse the
	// same either way).
	for iter := n; iter > 0; {
		id := s.words[iter]
		s.ids = append(s.ids, id)
		iter -= int(t.len16[id])
	}
	out := s.ids[:0]
	prevUnknown := false
	for _, id := range s.ids {
		if !(prevUnknown && id == unknownID) {
			out = append(out, id)
		}
		prevUnknown = id == unknownID
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	s.ids = out
	return out
}

// Long texts. The graph ignores every token past its first maxTokens
// (128), so tokenising all of a long text is wasted work, and the lattice
// of a megabyte of text would take a lot of memory. When prefixSafe holds,
// encodeForModel tokenises only a prefix of the text that ends just before
// a space: its tokens are exactly the first tokens of the whole text (NFKC
// never composes across a space either). It starts with firstCutBytes and
// doubles the prefix until it yields maxTokens tokens (a long run of
// unknown characters, CJK say, is a single token, so no fixed length
// would do). A text whose first hardCutBytes hold fewer tokens and no
// space after that is cut there, at a normalisation boundary: only such a
// pathological text can see tokens differ from the reference's.
const (
	firstCutBytes = 2048
	hardCutBytes  = 1 << 20
	// keepScratchSymbols bounds the tokenizer scratch a worker keeps after
	// a huge text.
	keepScratchSymbols = 1 << 16
)

func (t *tokenizer) setTokenLimit(maxTokens int) { t.maxTokens = maxTokens }

// encodeForModel returns the tokens of text that the model reads (at least
// the first maxTokens of them), as encode would give them for the whole
// text. The slice is scratch memory like encode's.
func (t *tokenizer) encodeForModel(text string, s *tokScratch) []int32 {
	defer s.shrink()
	if t.maxTokens <= 0 || !t.prefixSafe {
		return t.encode(text, s)
	}
	for limit := firstCutBytes; ; limit *= 2 {
		if limit >= len(text) {
			return t.encode(text, s)
		}
		if limit >= hardCutBytes {
			return t.encode(hardCut(text, hardCutBytes), s)
		}
		k := strings.IndexByte(text[limit:], ' ')
		if k < 0 {
			return t.encode(hardCut(text, hardCutBytes), s)
		}
		ids := t.encode(text[:limit+k], s)
		if len(ids) >= t.maxTokens {
			return ids
		}
	}
}

// hardCut returns text cut to at most n bytes at a normalisation boundary.
func hardCut(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	for cut > 0 {
		if norm.NFKC.FirstBoundaryInString(text[cut:]) == 0 {
			return text[:cut]
		}
		cut--
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return text[:n]
}

// shrink drops scratch buffers that a huge text grew, so that a worker does
// not keep tens of megabytes for the rest of its life.
func (s *tokScratch) shrink() {
	if cap(s.symbols) <= keepScratchSymbols {
		return
	}
	*s = tokScratch{}
}

// Tokenize returns the SentencePiece ids the model sees for text (before
// the model's own 128-token clip). It is exported for diagnostics and tests.
func (m *Model) Tokenize(text string) []int {
	var s tokScratch
	ids := m.tok.encode(text, &s)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

func growInt32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n, n+n/4)
	}
	return b[:n]
}

func growFloat64(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n, n+n/4)
	}
	return b[:n]
}
