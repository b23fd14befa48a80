package conversation

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/amem-dev/amem/internal/words"
)

// What the ranker needs to know of each note is derived from its text
// when amem's kernel indexes it (Fields) and kept in the full-text index,
// in step with the change feed: where the note holds each of its terms
// (content, keywords, the names it mentions, its speaker: lexindex.Where)
// and its traits; the index counts the content's terms itself
// (lexindex.DocInfo).
// Reading a candidate's row from the store at search time instead cost
// about 1 ms a search at 100k notes, which broke issue 12's latency bound
// (hybrid p50 within 1.5x of vector-only); a copy of each note's term
// sets beside the index cost about 950 heap bytes a note, which broke its
// memory bound at 1M notes.

type noteTrait uint8

const (
	hasTime    noteTrait = 1 << iota // a date or time expression
	hasNumber                        // a number, in digits or words
	hasBecause                       // a reason given
	hasPlace                         // "in/at/to/from" before a capitalised word
	hasName                          // a capitalised word other than the speaker's name
	// isTurn: the note is a turn of a conversation, "Speaker: text".
	isTurn
)

// Turn is the trait of a note that is a turn of a conversation,
// "Speaker: text": search counts the notes that have it
// (lexindex.Index.WithTraits) to choose the profile.
const Turn = uint8(isTurn)

// Fields returns what the ranker reads of a note's content, for the
// full-text index to keep with it (lexindex.Fields' Speaker, Names and
// Traits): the speaker of a turn, lower-cased; the names its text
// mentions; its traits.
func Fields(content string) (speaker string, names []string, traits uint8) {
	body := content
	turn := noteTrait(0)
	if sp, rest, ok := splitSpeaker(content); ok {
		speaker, body = strings.ToLower(sp), rest
		turn = isTurn
	}
	names, tr := scanBody(body, speaker)
	return speaker, names, uint8(tr | turn)
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
		case words.Number(lw): // restate.go's
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
