package offline

import (
	"slices"
	"testing"
	"time"
)

func TestSplitSpeaker(t *testing.T) {
	tests := []struct {
		in, speaker, body string
	}{
		{"Caroline: I went to a support group.", "Caroline", "I went to a support group."},
		{"Mary Ann Smith:   hello there", "Mary Ann Smith", "hello there"},
		{"Note: buy milk", "", "Note: buy milk"},
		{"User: what is the time?", "", "User: what is the time?"},
		{"The plan: go home", "", "The plan: go home"},
		{"Meeting at 10:30 tomorrow", "", "Meeting at 10:30 tomorrow"},
		{"caroline: lower case is not a name", "", "caroline: lower case is not a name"},
		{"Caroline:\n\nline two", "Caroline", "line two"},
	}
	for _, tt := range tests {
		s, b := splitSpeaker(tt.in)
		if s != tt.speaker || b != tt.body {
			t.Errorf("splitSpeaker(%q) = %q, %q; want %q, %q", tt.in, s, b, tt.speaker, tt.body)
		}
	}
}

func TestFindDates(t *testing.T) {
	ref := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC) // a Monday
	tests := []struct {
		in   string
		ref  time.Time
		want []string
	}{
		{"We met on 8 May 2023 and again on 9th of June, 2023.", time.Time{}, []string{"8 May 2023", "9 June 2023"}},
		{"Signed May 3, 2021; renewed 2022-06-30.", time.Time{}, []string{"3 May 2021", "30 June 2022"}},
		{"In March 2020 we moved. I may go.", time.Time{}, []string{"March 2020"}},
		{"May I ask about 2019?", time.Time{}, []string{"2019"}},
		{"I went yesterday and will go tomorrow.", ref, []string{"7 May 2023", "9 May 2023"}},
		{"I went yesterday.", time.Time{}, nil},
		{"Last week was busy; next month is calmer.", ref, []string{"the week before 8 May 2023", "June 2023"}},
		{"We adopted her two years ago, last Saturday she was ill.", ref, []string{"2021", "the Saturday before 8 May 2023"}},
		{"I ran 3 days ago and 3 miles today.", ref, []string{"5 May 2023", "8 May 2023"}},
		{"I have 3 kids.", ref, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, d := range findDates(tokenize(tt.in), tt.ref) {
			got = append(got, d.text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("findDates(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokenize(t *testing.T) {
	toks := tokenize("Caroline's self-care plan: don't stop! 3.5 km at 10:30.")
	var words []string
	for _, tk := range toks {
		words = append(words, tk.text)
	}
	want := []string{"Caroline", "self-care", "plan", "don't", "stop", "3.5", "km", "at", "10:30"}
	if !slices.Equal(words, want) {
		t.Fatalf("tokens %q, want %q", words, want)
	}
	if !toks[0].sentStart || toks[1].sentStart || !toks[5].sentStart {
		t.Error("sentence starts misplaced")
	}
	if !toks[3].broken {
		t.Error("a colon should break phrases")
	}
}

func TestTruncateWords(t *testing.T) {
	if got := truncateWords("short text", 20); got != "short text" {
		t.Errorf("got %q", got)
	}
	got := truncateWords("one two three four five six", 14)
	if got != "one two three…" {
		t.Errorf("got %q", got)
	}
}
