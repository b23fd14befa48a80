package locomo

import (
	"math"
	"reflect"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestNormalizeAnswer(t *testing.T) {
	cases := []struct{ in, want string }{
		{"The cat, and a Dog!", "cat dog"},
		{"Ann and Andy at the theatre", "ann andy at theatre"}, // whole words only
		{"  An   apple\ta day ", "apple day"},
		{"rock-n-roll (a.k.a. R&R)", "rocknroll aka rr"}, // punctuation deleted, not spaced
		{"1,000 dollars", "1000 dollars"},
		{"“Smart” — it’s the best, isn’t it?", "“smart” — it’s best isn’t it"}, // ASCII punctuation only
		{"The", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := NormalizeAnswer(c.in); got != c.want {
			t.Errorf("NormalizeAnswer(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestF1Score(t *testing.T) {
	cases := []struct {
		pred, gold string
		want       float64
	}{
		// [cat are run] vs [cat run]: P 2/3, R 1.
		{"The cats are running", "a cat runs", 0.8},
		{"Paris", "paris.", 1},
		{"", "Paris", 0},
		{"Paris", "", 0},
		{"the and a an", "the", 0}, // both normalise to nothing
		// Multiset overlap: min(3, 1) = 1 common; P 1/3, R 1/2.
		{"dog dog dog", "dog cat", 0.4},
		{"7 May 2023", "7 May, 2023", 1},
	}
	for _, c := range cases {
		if got := F1Score(c.pred, c.gold); !near(got, c.want) {
			t.Errorf("F1Score(%q, %q) = %v, want %v", c.pred, c.gold, got, c.want)
		}
	}
}

func TestF1Official(t *testing.T) {
	cases := []struct {
		name       string
		pred, gold string
		cat        int
		want       float64
	}{
		// Category 1: gold parts pottery / camping / painting; the single
		// prediction part [she like paint potteri] scores 0.4 on pottery
		// and on painting, 0 on camping: (0.4+0+0.4)/3.
		{"multi-hop one part", "She likes painting and pottery", "pottery, camping, painting", 1, 0.8 / 3},
		// Prediction parts pottery and painting each match a gold part exactly.
		{"multi-hop split", "pottery, painting", "pottery, camping, painting", 1, 2.0 / 3},
		{"multi-hop exact", "Running, pottery", "running, Pottery", 1, 1},
		{"multi-hop single gold", "Sweden", "Sweden", 1, 1},
		// Category 3: the gold is cut to "Likely no" = [like no]; P 1, R 1/2.
		{"open-domain cut", "no", "Likely no; though she likes reading", 3, 2.0 / 3},
		{"open-domain no semicolon", "liberal", "Liberal", 3, 1},
		// Category 5: the prediction must say it is not mentioned.
		{"adversarial not mentioned", "Not mentioned in the conversation", "self-care is important", 5, 1},
		{"adversarial no info", "NO INFORMATION AVAILABLE.", "", 5, 1},
		{"adversarial answered", "self-care is important", "self-care is important", 5, 0},
		{"adversarial mentioned", "It was mentioned", "x", 5, 0},
		{"adversarial spacing", "not  mentioned", "x", 5, 0},
		// Categories 2 and 4: plain F1, no splitting.
		{"temporal", "8 May 2023", "8 May, 2023", 2, 1},
		{"single-hop no split", "pottery, painting", "pottery", 4, 2.0 / 3},
		{"temporal no cut", "no", "Likely no; though", 2, 0.5},
		{"unknown category", "a cat", "cat", 9, 1},
	}
	for _, c := range cases {
		if got := F1Official(c.pred, c.gold, c.cat); !near(got, c.want) {
			t.Errorf("%s: F1Official(%q, %q, %d) = %v, want %v", c.name, c.pred, c.gold, c.cat, got, c.want)
		}
	}
}

func TestF1Set(t *testing.T) {
	cases := []struct {
		pred, gold string
		want       float64
	}{
		// Sets {the cat sat} and {the cat}: P 2/3, R 1.
		{"The cat sat. The cat!", "the cat", 0.8},
		{"Hello, world", "hello world!", 1},
		{"don't", "dont", 0}, // no other punctuation is removed
		{"cats", "cat", 0},   // no stemming
		{"a b", "a c", 0.5},  // no article removal
		{"", "x", 0},
		{"x", "", 0},
		{"...", "x", 0},
	}
	for _, c := range cases {
		if got := F1Set(c.pred, c.gold); !near(got, c.want) {
			t.Errorf("F1Set(%q, %q) = %v, want %v", c.pred, c.gold, got, c.want)
		}
	}
}

func TestBLEU1(t *testing.T) {
	cases := []struct {
		pred, ref string
		want      float64
	}{
		// 5 of 6 unigrams match (the ×2, cat, on, mat); equal lengths, BP 1.
		{"the cat sat on the mat", "the cat is on the mat", 5.0 / 6},
		// All match, but c=2 < r=6: BP = exp(1-6/2).
		{"the cat", "the cat is on the mat", math.Exp(-2)},
		// Clipping: "the" counts once; c=4 > r=2, BP 1.
		{"the the the the", "the cat", 0.25},
		// word_tokenize splits the final period; case is folded.
		{"Paris.", "paris", 0.5},
		// [i do n't know .] vs [i do not know]: 3/5, BP 1.
		{"I don't know.", "i do not know", 0.6},
		// [they went on 8 may , 2023 .] vs [8 may 2023]: 3/8.
		{"They went on 8 May, 2023.", "8 May 2023", 0.375},
		{"dog", "cat", 0}, // no unigram match: 0 before smoothing
		{"", "cat", 0},
		{"cat", "", 0},
	}
	for _, c := range cases {
		if got := BLEU1(c.pred, c.ref); !near(got, c.want) {
			t.Errorf("BLEU1(%q, %q) = %v, want %v", c.pred, c.ref, got, c.want)
		}
	}
}

func TestSentenceBLEUSmoothing(t *testing.T) {
	// BLEU-2 on [a b] vs [a c]: p1 = 1/2, p2 = 0/1 smoothed to 0.1/1;
	// BP 1; exp(0.5 ln 0.5 + 0.5 ln 0.1) = sqrt(0.05).
	got := sentenceBLEU([]string{"a", "c"}, []string{"a", "b"}, []float64{0.5, 0.5})
	if want := math.Sqrt(0.05); !near(got, want) {
		t.Errorf("sentenceBLEU = %v, want %v", got, want)
	}
}

func TestWordTokenize(t *testing.T) {
	// Expected outputs checked against NLTK 3.8 (NLTKWordTokenizer after
	// Punkt sentence splitting).
	cases := []struct {
		in   string
		want []string
	}{
		{`He said "hello there" and left.`, []string{"He", "said", "``", "hello", "there", "''", "and", "left", "."}},
		{"I don't know, can't say; won't tell!", []string{"I", "do", "n't", "know", ",", "ca", "n't", "say", ";", "wo", "n't", "tell", "!"}},
		{"It's 3,000 dollars at 10:30 pm.", []string{"It", "'s", "3,000", "dollars", "at", "10:30", "pm", "."}},
		{"Wait... what?! (really)", []string{"Wait", "...", "what", "?", "!", "(", "really", ")"}},
		{"I wanna go -- gonna be fun, gotta run. Lemme see.", []string{"I", "wan", "na", "go", "--", "gon", "na", "be", "fun", ",", "got", "ta", "run", ".", "Lem", "me", "see", "."}},
		{"'Tis the season, 'twas fun.", []string{"'T", "is", "the", "season", ",", "'t", "was", "fun", "."}},
		{"i went home. then i slept.", []string{"i", "went", "home", ".", "then", "i", "slept", "."}},
		{"born in 1990. she moved", []string{"born", "in", "1990.", "she", "moved"}},
		{"mr. smith went to dr. who.", []string{"mr.", "smith", "went", "to", "dr.", "who", "."}},
		{"the u.s. is big.", []string{"the", "u.s.", "is", "big", "."}},
		{"cost: $5.50 or 5%? #tag", []string{"cost", ":", "$", "5.50", "or", "5", "%", "?", "#", "tag"}},
		{"I'm, you're, we've, they'll, he'd", []string{"I", "'m", ",", "you", "'re", ",", "we", "'ve", ",", "they", "'ll", ",", "he", "'d"}},
		{"cannot", []string{"can", "not"}},
		{"‘curly’ “double”", []string{"‘", "curly", "’", "“", "double", "”"}},
		{"the 'a' grade", []string{"the", "'", "a", "'", "grade"}},
		{"Paris, Rome", []string{"Paris", ",", "Rome"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := WordTokenize(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("WordTokenize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
