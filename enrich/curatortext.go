package enrich

import (
	"strings"
	"unicode/utf8"

	"github.com/amem-dev/amem"
)

// Limits on what the curator writes, and on a change's reason.
const (
	maxReasonBytes    = 512
	maxCuratorTermLen = amem.MaxTermBytes
)

// nul is refused in every text a note keeps: PostgreSQL's text can't hold
// it, and a note must read the same on every store.
const nul = "\x00"

// cleanTerms sanitises curator output instead of rejecting it: a model's
// sloppy list should not fail the whole enrichment. NUL goes, as Add
// refuses it.
func cleanTerms(terms []string, limit int) []string {
	out := make([]string, 0, min(len(terms), limit))
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		t = strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(t, ""), nul, ""))
		if t == "" || len(t) > maxCuratorTermLen {
			continue
		}
		k := strings.ToLower(t)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
		if len(out) == limit {
			break
		}
	}
	return out
}

// cleanText sanitises a curator-written sentence: valid UTF-8 without NUL,
// one line, bounded length (cut at a rune boundary).
func cleanText(s string, limit int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, ""), nul, "")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// curatedTags returns the curator's share of tags, a curator's new tag
// list for a note that was prev: every tag but prev's caller tags. So a
// curator that repeats a caller's tag leaves it the caller's, and one
// that drops a caller's tag doesn't make it the curator's.
func curatedTags(prev amem.Note, tags []string) []string {
	caller := prev.CallerTags()
	var out []string
	for _, t := range tags {
		if !amem.HasTag(caller, t) {
			out = append(out, t)
		}
	}
	return out
}
