package amem

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/amem-dev/amem/lexindex"
)

// What the ranker needs to know of each note, derived from its text once,
// when the kernel indexes the note (space.go), and kept beside the
// full-text index in step with the change feed. Reading a candidate's
// row from the store at search time instead cost about 1 ms per search at
// 100k notes, which broke issue 12's latency bound (hybrid p50 within
// 1.5x of vector-only).

// noteText is one note's ranker data, held by value in one allocation
// of hashes: a search reads a hundred candidates' at random among all
// the namespace's, and every separate allocation cost a cache miss each
// (at 100k notes the features took 0.5 ms a search with four).
type noteText struct {
	// sets are three sorted sets of hashes (termHash) back to back: the
	// content's distinct terms [:nc], the keywords' terms [nc:nk], and the
	// capitalised words of the content after the speaker, lowercased
	// [nk:].
	sets   []uint64
	nc, nk int32
	terms  int32 // the content's length in terms
	traits noteTrait
	// speaker is the hash of the "Speaker:" the content starts with,
	// lowercased; 0 if none.
	speaker uint64
	// keywordList is the keywords themselves, for the feedback ranking
	// (rankings.go).
	keywordList []string
}

func (t *noteText) content() []uint64  { return t.sets[:t.nc] }
func (t *noteText) keywords() []uint64 { return t.sets[t.nc:t.nk] }
func (t *noteText) names() []uint64    { return t.sets[t.nk:] }

type noteTrait uint8

const (
	hasTime    noteTrait = 1 << iota // a date or time expression
	hasNumber                        // a number, in digits or words
	hasBecause                       // a reason given
	hasPlace                         // "in/at/to/from" before a capitalised word
	hasName                          // a capitalised word other than the speaker's name
)

// bytes is about the memory a noteText holds, for the index budget.
func (t *noteText) bytes() int64 {
	n := int64(96 + 8*len(t.sets))
	for _, s := range t.keywordList {
		n += int64(16 + len(s))
	}
	return n
}

// termHash is FNV-1a over a term's bytes.
func termHash(term []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range term {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

func hashString(s string) uint64 { return termHash([]byte(s)) }

// holds reports whether a sorted hash set holds h.
func holds(set []uint64, h uint64) bool {
	_, ok := slices.BinarySearch(set, h)
	return ok
}

// newNoteText derives a note's ranker data from the text the full-text
// index holds of it, with tok (which the caller does not share).
func newNoteText(tok *lexindex.Tokenizer, f lexindex.Fields) noteText {
	var t noteText
	body, speaker := f.Content, ""
	if sp, rest, ok := splitSpeaker(f.Content); ok {
		speaker, body = strings.ToLower(sp), rest
		t.speaker = hashString(speaker)
	}
	var content, keywords []uint64
	tok.Each(f.Content, func(term []byte) {
		t.terms++
		content = append(content, termHash(term))
	})
	content = sortedSet(content)
	for _, k := range f.Keywords {
		tok.Each(k, func(term []byte) { keywords = append(keywords, termHash(term)) })
	}
	keywords = sortedSet(keywords)
	names, traits := scanBody(body, speaker)
	t.traits = traits
	t.sets = make([]uint64, 0, len(content)+len(keywords)+len(names))
	t.sets = append(append(t.sets, content...), keywords...)
	t.nc, t.nk = int32(len(content)), int32(len(content)+len(keywords))
	for _, n := range names {
		t.sets = append(t.sets, hashString(n))
	}
	slices.Sort(t.sets[t.nk:])
	t.keywordList = slices.Clip(f.Keywords)
	return t
}

func sortedSet(xs []uint64) []uint64 {
	slices.Sort(xs)
	return slices.Clip(slices.Compact(xs))
}

// splitSpeaker splits "Name: text" into the name and the text, for a
// name of at most three words.
func splitSpeaker(content string) (speaker, rest string, ok bool) {
	i := strings.Index(content, ": ")
	if i <= 0 || i > 40 {
		return "", content, false
	}
	sp := content[:i]
	if strings.Count(sp, " ") > 2 || strings.ContainsAny(sp, ".,!?\n") {
		return "", content, false
	}
	return sp, content[i+2:], true
}

// scanBody reads a note's text after its speaker word by word: the
// capitalised words (names, places; "I" and a sentence's first word
// left out), and the traits the question-kind features look for.
func scanBody(body, speaker string) ([]string, noteTrait) {
	var names []string
	var tr noteTrait
	sentenceStart := true
	prev := ""
	for w := range strings.FieldsSeq(body) {
		word := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if word == "" {
			continue
		}
		lw := strings.ToLower(word)
		r, _ := utf8.DecodeRuneInString(word)
		switch {
		case unicode.IsDigit(r):
			tr |= hasNumber
			if len(word) == 4 && (strings.HasPrefix(word, "19") || strings.HasPrefix(word, "20")) {
				tr |= hasTime
			}
		case numberWords[lw]: // restate.go's
			tr |= hasNumber
		}
		if timeWords[lw] {
			tr |= hasTime
		}
		if lw == "because" || lw == "reason" || lw == "since" || lw == "so" {
			tr |= hasBecause
		}
		if unicode.IsUpper(r) && !sentenceStart && word != "I" && !timeWords[lw] {
			names = append(names, lw)
			if lw != speaker {
				tr |= hasName
			}
			if placePrepositions[prev] {
				tr |= hasPlace
			}
		}
		last, _ := utf8.DecodeLastRuneInString(w)
		sentenceStart = last == '.' || last == '!' || last == '?'
		prev = lw
	}
	slices.Sort(names)
	return slices.Clip(slices.Compact(names)), tr
}

var placePrepositions = map[string]bool{"in": true, "at": true, "to": true, "from": true, "near": true, "visited": true}

var timeWords = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true,
	"sunday": true, "yesterday": true, "today": true, "tomorrow": true, "tonight": true, "weekend": true,
	"week": true, "month": true, "year": true, "ago": true, "last": true, "recently": true, "morning": true,
	"evening": true, "night": true, "weeks": true, "months": true, "years": true, "days": true, "summer": true,
	"winter": true, "spring": true, "fall": true, "birthday": true,
}

// noteTexts holds a namespace's noteText by note ID. It has a lock of its
// own: searches, holding the space's read lock, add the notes a saved
// index load did not read (see space.texts).
type noteTexts struct {
	mu    sync.RWMutex
	m     map[string]noteText
	bytes int64
}

func newNoteTexts(n int) *noteTexts { return &noteTexts{m: make(map[string]noteText, n)} }

func (ts *noteTexts) put(id string, t noteText) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if old, ok := ts.m[id]; ok {
		ts.bytes -= old.bytes()
	}
	ts.m[id] = t
	ts.bytes += t.bytes()
}

func (ts *noteTexts) remove(id string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if old, ok := ts.m[id]; ok {
		ts.bytes -= old.bytes()
		delete(ts.m, id)
	}
}

func (ts *noteTexts) size() int64 {
	if ts == nil {
		return 0
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	return ts.bytes
}
