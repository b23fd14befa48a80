package main

import "strings"

// changeContext is how much unchanged text changedParts keeps on each
// side of a change: enough to see where in the field it is.
const changeContext = 20

// changedParts is a changed field's old and new values as history prints
// them, each on one line within width runes. Values that fit are whole.
// Longer ones show the part that changed, with the text both share before
// and after it elided ("…") but for changeContext runes: clipping both
// from the start printed two identical strings for an evolution that
// appended to a long context.
func changedParts(old, new string, width int) (string, string) {
	o := []rune(strings.Join(strings.Fields(old), " "))
	n := []rune(strings.Join(strings.Fields(new), " "))
	if len(o) <= width && len(n) <= width {
		return string(o), string(n)
	}
	prefix := 0
	for prefix < len(o) && prefix < len(n) && o[prefix] == n[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(o)-prefix && suffix < len(n)-prefix && o[len(o)-1-suffix] == n[len(n)-1-suffix] {
		suffix++
	}
	from := max(prefix-changeContext, 0)
	keep := max(suffix-changeContext, 0) // shared tail elided
	return elided(o, from, len(o)-keep, width), elided(n, from, len(n)-keep, width)
}

// elided is r[from:to] marked "…" where text was left out on either side,
// then clipped to width runes.
func elided(r []rune, from, to, width int) string {
	s := string(r[from:to])
	if from > 0 {
		s = "…" + s
	}
	if to < len(r) {
		s += "…"
	}
	if c := []rune(s); len(c) > width {
		s = string(c[:width-1]) + "…"
	}
	return s
}
