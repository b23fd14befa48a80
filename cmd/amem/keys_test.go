package main

import "testing"

// A key name stored before names were checked cannot send escape
// sequences to the terminal through amem keys list.
func TestPrintableKeyName(t *testing.T) {
	for in, want := range map[string]string{
		"ci bot":          "ci bot",
		"Zoë's key":       "Zoë's key",
		"evil\x1b[2J":     `evil\x1b[2J`,
		"two\nlines\ttab": `two\nlines\ttab`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
