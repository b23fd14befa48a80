package main

import (
	"reflect"
	"testing"
)

// TestSplitHeadings: by paragraph, a heading opens its section's first
// paragraph, even across a blank line; a heading with nothing under it
// before the next one (or the end) is kept alone rather than dropped.
func TestSplitHeadings(t *testing.T) {
	md := "# Book\n## Part one\n\nIt begins.\nStill.\n\nSecond paragraph.\n\n## Empty\n## Part two\nAt once.\n\n# Last"
	want := []textPiece{
		{1, "Book", "Book"},
		{2, "Part one\nIt begins.\nStill.", "Part one"},
		{7, "Second paragraph.", "Part one"},
		{9, "Empty", "Empty"},
		{10, "Part two\nAt once.", "Part two"},
		{13, "Last", "Last"},
	}
	if got := splitText([]byte(md), splitParagraph); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	// By line, a heading stays a line of its own.
	if got := splitText([]byte("# Title\ntext"), splitLine); len(got) != 2 || got[0].text != "Title" || got[0].section != "" {
		t.Fatalf("by line: %+v", got)
	}
}
