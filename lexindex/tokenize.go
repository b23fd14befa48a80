package lexindex

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenizer splits text into terms the way SQLite FTS5's porter tokenizer does
// ('porter unicode61 remove_diacritics 2'): words are runs of letters,
// numbers, marks and private-use characters; each is lowercased, loses its
// diacritics and is Porter-stemmed. It reuses its buffers, so one belongs
// to one goroutine.
//
// Known differences from FTS5 (see also stem):
//
//   - Character classes and case folding come from Go's Unicode tables
//     (15.0); FTS5's are compiled-in tables of an older Unicode version, so
//     letters added since are separators there and words here.
//   - Diacritics go by NFD, dropping combining marks of the diacritical
//     blocks (U+0300-036F, 1AB0-1AFF, 1DC0-1DFF, 20D0-20FF, FE20-FE2F), then
//     NFC. FTS5 folds a fixed table of Latin letters instead; so here Greek
//     and Cyrillic accents fold too ("ά"->"α", "й"->"и"), while letters
//     with no decomposition ("ø", "ł", "đ") are kept as they are, which FTS5
//     may fold. Other marks (Devanagari vowel signs, Hebrew points) stay in
//     the word, as they do in FTS5.
//   - FTS5 folds case per code point; unicode.ToLower is per code point too,
//     but the two tables differ on a few characters (e.g. title-case
//     digraphs).
//   - CJK text has no spaces, so a run of ideographs is one term, as in
//     unicode61.
type tokenizer struct {
	word []byte // the current word, lowercased
	fold []byte // scratch for diacritic removal
	comp []byte
	// terms remembers the terms of words seen before: text repeats a small
	// vocabulary, and folding and stemming were most of indexing's time.
	terms map[string][]byte
}

// maxRemembered bounds tokenizer.terms; past it, it starts again.
const maxRemembered = 1 << 15

// each calls fn with every term of text, in order. term is only valid
// during the call.
func (t *tokenizer) each(text string, fn func(term []byte)) {
	t.word = t.word[:0]
	ascii := true
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				t.word = append(t.word, c)
			case 'A' <= c && c <= 'Z':
				t.word = append(t.word, c+('a'-'A'))
			default:
				if len(t.word) > 0 {
					fn(t.finish(ascii))
					t.word, ascii = t.word[:0], true
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if r != utf8.RuneError && isWordRune(r) {
			t.word = utf8.AppendRune(t.word, unicode.ToLower(r))
			ascii = false
			continue
		}
		if len(t.word) > 0 {
			fn(t.finish(ascii))
			t.word, ascii = t.word[:0], true
		}
	}
	if len(t.word) > 0 {
		fn(t.finish(ascii))
	}
}

// finish folds diacritics out of the current word unless it is ASCII, and
// stems it.
func (t *tokenizer) finish(ascii bool) []byte {
	if term, ok := t.terms[string(t.word)]; ok {
		return term
	}
	word := string(t.word)
	term := t.fold1(ascii)
	if t.terms == nil || len(t.terms) == maxRemembered {
		t.terms = make(map[string][]byte)
	}
	// A copy: the caller only reads a term, but term may be t's scratch.
	t.terms[word] = slices.Clip(append([]byte(nil), term...))
	return term
}

// fold1 is finish without the memory.
func (t *tokenizer) fold1(ascii bool) []byte {
	w := t.word
	if !ascii {
		w = t.removeDiacritics(w)
		if len(w) == 0 {
			return w
		}
	}
	// stem may append one byte.
	if cap(w)-len(w) < 1 {
		w = append(w, 0)[:len(w)]
	}
	return stem(w)
}

// removeDiacritics returns w without diacritical marks, in t's scratch,
// unless w has none, in which case w itself.
func (t *tokenizer) removeDiacritics(w []byte) []byte {
	d := norm.NFD.Append(t.fold[:0], w...)
	t.fold = d
	out := t.comp[:0]
	changed := false
	for i := 0; i < len(d); {
		r, size := utf8.DecodeRune(d[i:])
		if isDiacritic(r) {
			changed = true
		} else {
			out = append(out, d[i:i+size]...)
		}
		i += size
	}
	if !changed {
		return w
	}
	// NFC puts back together what NFD split and isn't a diacritic (Hangul
	// syllables, for one).
	t.fold = norm.NFC.Append(t.fold[:0], out...)
	t.comp = out
	return t.fold
}

// isWordRune reports whether r is part of a word: unicode61's token
// characters (L*, N*, Co) plus marks, which remove_diacritics folds away.
// It is sqlite's isWordRune (sqlite/fts.go), so query words split alike.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}

func isDiacritic(r rune) bool {
	return 0x300 <= r && r <= 0x36f || 0x1ab0 <= r && r <= 0x1aff ||
		0x1dc0 <= r && r <= 0x1dff || 0x20d0 <= r && r <= 0x20ff || 0xfe20 <= r && r <= 0xfe2f
}

// Terms returns the terms of text, as the index sees them: for tests and
// for tools that show why a note matched.
func Terms(text string) []string {
	var t tokenizer
	var out []string
	t.each(text, func(term []byte) { out = append(out, string(term)) })
	return out
}
