package locomo

import "testing"

// Expected stems are NLTK 3.8's PorterStemmer() (NLTK_EXTENSIONS) outputs.
func TestPorterStem(t *testing.T) {
	cases := []struct{ word, want string }{
		// The examples of the brief and of Porter's paper.
		{"running", "run"}, {"happily", "happili"}, {"generously", "gener"},
		{"caresses", "caress"}, {"ponies", "poni"}, {"relational", "relat"},
		{"conditional", "condit"}, {"agreed", "agre"}, {"hopping", "hop"},
		{"caress", "caress"}, {"cats", "cat"}, {"feed", "feed"},
		{"plastered", "plaster"}, {"bled", "bled"}, {"motoring", "motor"},
		{"sing", "sing"}, {"conflated", "conflat"}, {"troubled", "troubl"},
		{"sized", "size"}, {"tanned", "tan"}, {"falling", "fall"},
		{"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
		{"filing", "file"}, {"triplicate", "triplic"}, {"formative", "form"},
		{"formalize", "formal"}, {"electricity", "electr"}, {"electrical", "electr"},
		{"hopeful", "hope"}, {"goodness", "good"}, {"revival", "reviv"},
		{"allowance", "allow"}, {"inference", "infer"}, {"airliner", "airlin"},
		{"gyroscopic", "gyroscop"}, {"adjustable", "adjust"}, {"defensible", "defens"},
		{"irritant", "irrit"}, {"replacement", "replac"}, {"adjustment", "adjust"},
		{"dependent", "depend"}, {"adoption", "adopt"}, {"homologous", "homolog"},
		{"communism", "commun"}, {"activate", "activ"}, {"angularity", "angular"},
		{"effective", "effect"}, {"bowdlerize", "bowdler"}, {"probate", "probat"},
		{"rate", "rate"}, {"cease", "ceas"}, {"controll", "control"}, {"roll", "roll"},
		{"vietnamization", "vietnam"}, {"predication", "predic"}, {"operator", "oper"},
		{"feudalism", "feudal"}, {"decisiveness", "decis"}, {"hopefulness", "hope"},
		{"callousness", "callous"}, {"sensitivity", "sensit"}, {"sensibility", "sensibl"},
		// NLTK_EXTENSIONS specifics.
		{"happy", "happi"}, {"sky", "sky"}, {"skies", "sky"}, {"dying", "die"},
		{"lying", "lie"}, {"news", "news"}, {"dies", "die"}, {"died", "die"},
		{"spied", "spi"}, {"flies", "fli"}, {"cry", "cri"}, {"enjoy", "enjoy"},
		{"enjoyment", "enjoy"}, {"radically", "radic"}, {"fully", "fulli"},
		{"analogy", "analog"}, {"archaeology", "archaeolog"},
		// Short words, case, LoCoMo vocabulary.
		{"is", "is"}, {"as", "as"}, {"a", "a"}, {"", ""}, {"Caroline", "carolin"},
		{"painting", "paint"}, {"pottery", "potteri"}, {"counseling", "counsel"},
		{"transgender", "transgend"},
	}
	for _, c := range cases {
		if got := PorterStem(c.word); got != c.want {
			t.Errorf("PorterStem(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}
