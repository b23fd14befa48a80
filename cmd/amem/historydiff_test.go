package main

import "testing"

// TestChangedParts: history shows what changed in a long field, where
// clipping both values from the start showed two identical strings.
func TestChangedParts(t *testing.T) {
	long := "Caroline talks about the support group she went to and what it meant to her"
	for _, tc := range []struct {
		name, old, new, wantOld, wantNew string
	}{
		{"short values whole", "a dog", "a big dog", "a dog", "a big dog"},
		{"appended", long, long + ", and her plan to adopt",
			"…what it meant to her", "…what it meant to her, and her plan to adopt"},
		{"changed in the middle", long, "Caroline talks about the chess club she went to and what it meant to her",
			"…ine talks about the support group she went to and wha…", "…ine talks about the chess club she went to and wha…"},
		{"prepended", long, "Today: " + long, "Caroline talks about…", "Today: Caroline talks about…"},
		{"emptied", long, "", "Caroline talks about the support group she went to and what…", ""},
		{"space is not a change", "a  dog", "a dog\n", "a dog", "a dog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, n := changedParts(tc.old, tc.new, 60)
			if o != tc.wantOld || n != tc.wantNew {
				t.Fatalf("got\n  %q ->\n  %q\nwant\n  %q ->\n  %q", o, n, tc.wantOld, tc.wantNew)
			}
		})
	}
}
