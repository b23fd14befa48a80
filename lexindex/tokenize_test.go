package lexindex

import (
	"slices"
	"testing"
)

func TestStem(t *testing.T) {
	// Porter's paper's examples, run through the whole algorithm, plus the
	// points where FTS5's original Porter and NLTK part ways.
	cases := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled",
		"motoring": "motor", "sing": "sing", "conflated": "conflat", "troubled": "troubl",
		"sized": "size", "hopping": "hop", "tanned": "tan", "falling": "fall",
		"hissing": "hiss", "fizzed": "fizz", "failing": "fail", "filing": "file",
		"happy": "happi", "sky": "sky",
		"relational": "relat", "conditional": "condit", "rational": "ration",
		"valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile",
		"analogousli": "analog", "vietnamization": "vietnam", "predication": "predic",
		"operator": "oper", "feudalism": "feudal", "decisiveness": "decis",
		"hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl",
		"triplicate": "triplic", "formative": "form", "formalize": "formal",
		"electriciti": "electr", "electrical": "electr", "hopeful": "hope", "goodness": "good",
		"revival": "reviv", "allowance": "allow", "inference": "infer", "airliner": "airlin",
		"adjustable": "adjust", "defensible": "defens", "irritant": "irrit",
		"replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun",
		"activate": "activ", "angulariti": "angular", "homologous": "homolog",
		"effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generously": "gener", "running": "run", "runs": "run", "archaeology": "archaeolog",
		// FTS5, not NLTK:
		"dies": "di", "skies": "ski", "dying": "dy", "cry": "cry", "enjoy": "enjoi",
		// too short or too long to stem
		"is": "is", "as": "as", "ed": "ed",
		"antidisestablishmentarianismsantidisestablishmentarianismsabcdefgs": "antidisestablishmentarianismsantidisestablishmentarianismsabcdefgs",
	}
	for in, want := range cases {
		w := append(make([]byte, 0, len(in)+1), in...)
		if got := string(stem(w)); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerms(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"HELLO, World!", []string{"hello", "world"}},
		{"What did Caroline do?", []string{"what", "did", "carolin", "do"}},
		{"don't stop-believing", []string{"don", "t", "stop", "believ"}},
		{"COVID-19 in 2024: 3.5%", []string{"covid", "19", "in", "2024", "3", "5"}},
		{"Café naïve Ångström", []string{"cafe", "naiv", "angstrom"}},
		{"CAFÉ cafe\u0301", []string{"cafe", "cafe"}}, // precomposed and combining alike
		{"Straße", []string{"straß"}},                 // no diacritic to remove
		{"Ελληνικά άλφα", []string{"ελληνικα", "αλφα"}},
		{"東京タワーに行った", []string{"東京タワーに行った"}}, // no spaces, one term, as unicode61
		{"한국어 텍스트", []string{"한국어", "텍스트"}},
		{"한\u0301국", []string{"한국"}},                 // marks dropped, syllables recomposed
		{"x\u0915\u093f", []string{"x\u0915\u093f"}}, // a Devanagari vowel sign stays
		{"", nil},
		{"  ...!? ", nil},
		{"tab\tnew\nline\u00a0nbsp", []string{"tab", "new", "line", "nbsp"}},
		{"\xff\xfebad utf8", []string{"bad", "utf8"}},
	}
	for _, c := range cases {
		if got := Terms(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTokenizerAllocs(t *testing.T) {
	var tok tokenizer
	text := "What did Melanie paint in the summer of 2022, after her trip to the lake?"
	tok.each(text, func([]byte) {})
	n := testing.AllocsPerRun(100, func() { tok.each(text, func([]byte) {}) })
	if n != 0 {
		t.Errorf("tokenizing ASCII text allocates %v times", n)
	}
}
