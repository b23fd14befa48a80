package main

import (
	"bytes"
	"regexp"
	"strings"
)

// Text import: a text or Markdown file becomes one note per line or per
// paragraph.

const (
	splitLine      = "line"
	splitParagraph = "paragraph"
)

// defaultSplit is paragraph for Markdown, whose paragraphs are its units,
// and line otherwise (stdin included): a plain text file is most often a
// list, one memory a line.
func defaultSplit(name string) string {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".md") || strings.HasSuffix(lower, ".markdown") {
		return splitParagraph
	}
	return splitLine
}

var (
	// heading: ATX heading hashes, and the closing ones some write.
	heading       = regexp.MustCompile(`^#{1,6}(\s+|$)`)
	closingHashes = regexp.MustCompile(`\s+#+\s*$`)
	quoteMarker   = regexp.MustCompile(`^(>\s?)+`)
	listMarker    = regexp.MustCompile(`^([-*+]|\d{1,9}[.)])\s+`)
	taskBox       = regexp.MustCompile(`^\[[ xX]\]\s+`)
	thematicBreak = regexp.MustCompile(`^([-*_]\s*){3,}$`)
	fence         = regexp.MustCompile("^(```|~~~)")
)

// cleanLine strips the Markdown that marks a line's role, not its
// meaning: heading hashes, blockquote markers, list markers and task
// boxes, in that order, and surrounding space. A thematic break (---) or
// a code fence (```) alone is nothing. Emphasis, links and code spans stay: they are the text.
func cleanLine(s string) string {
	s = strings.TrimSpace(s)
	if thematicBreak.MatchString(s) || fence.MatchString(s) {
		return ""
	}
	if heading.MatchString(s) {
		s = closingHashes.ReplaceAllString(heading.ReplaceAllString(s, ""), "")
	}
	s = quoteMarker.ReplaceAllString(s, "")
	s = listMarker.ReplaceAllString(s, "")
	s = taskBox.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// textPiece is one note's text, the line it starts on (1-based) and, in
// a Markdown file split by paragraph, the heading of its section.
type textPiece struct {
	line    int
	text    string
	section string
}

// splitText cuts data into pieces. By line: every line that is not blank
// once cleaned. By paragraph: runs of lines between blank lines, each
// line cleaned, joined by newlines; a fenced code block is kept whole and
// as written, blank lines and all. A heading opens its section's first
// paragraph (a heading alone says little to search or to the curator,
// and its paragraph loses what it is about), and every paragraph of the
// section records it; a heading with no paragraph before the next
// heading is a piece by itself, so no text is dropped.
func splitText(data []byte, mode string) []textPiece {
	data = bytes.TrimPrefix(data, utf8BOM)
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []textPiece
	if mode == splitLine {
		for i, l := range lines {
			if t := cleanLine(l); t != "" {
				out = append(out, textPiece{line: i + 1, text: t})
			}
		}
		return out
	}
	var (
		cur     []string
		start   int
		inFence bool
		section string
		opened  bool // cur starts with section's heading, and nothing else yet
	)
	flush := func() {
		if len(cur) > 0 && !opened {
			out = append(out, textPiece{start, strings.Join(cur, "\n"), section})
			cur = nil
		}
	}
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		var t string
		switch {
		case fence.MatchString(trimmed):
			inFence, t = !inFence, trimmed
		case inFence:
			t = strings.TrimRight(l, " \t")
		case heading.MatchString(trimmed):
			opened = false
			flush()
			if t = cleanLine(l); t != "" {
				cur, start, section, opened = []string{t}, i+1, t, true
			}
			continue
		default:
			if t = cleanLine(l); t == "" {
				flush()
				continue
			}
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, t)
		opened = false
	}
	opened = false
	flush()
	return out
}
