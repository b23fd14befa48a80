package uselite

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// testdata/tokenizer_reference.json holds the reference JavaScript
// tokenizer's output for tricky texts (regenerate with
// tfjsbench/tokenize.js).
func TestTokenizerMatchesReference(t *testing.T) {
	m := loadTestModel(t)
	data, err := os.ReadFile("testdata/tokenizer_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Rows []struct {
			Text string `json:"text"`
			IDs  []int  `json:"ids"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Rows) < 40 {
		t.Fatalf("only %d reference rows", len(ref.Rows))
	}
	for _, row := range ref.Rows {
		got := m.Tokenize(row.Text)
		if !slices.Equal(got, row.IDs) {
			t.Errorf("Tokenize(%q)\n got %v\nwant %v", row.Text, got, row.IDs)
		}
	}
}

// TestTokenizerQuirks pins the reference behaviours the tokenizer copies,
// on a tiny vocabulary where they are easy to see. The expectations are
// what the reference JavaScript Tokenizer returns for this vocabulary.
func TestTokenizerQuirks(t *testing.T) {
	vocab := `[["\ufffd",0],["<s>",0],["</s>",0],["x1",0],["x2",0],["x3",0],
		["\u2581",-2],["a",-3],["b",-3],["ab",-5],["\u2581a",-1],["c",null],["cc",-1],["d",-4],["d",-9]]`
	tok, err := parseVocab([]byte(vocab))
	if err != nil {
		t.Fatal(err)
	}
	var s tokScratch
	enc := func(text string) []int32 { return slices.Clone(tok.encode(text, &s)) }
	for _, tc := range []struct {
		text string
		want []int32
	}{
		{"", nil},
		{"a", []int32{10}},                  // "▁a" beats "▁"+"a"
		{"ab", []int32{10, 8}},              // -1-3 beats ▁ + ab (-2-5)
		{"ba", []int32{6, 8, 7}},            // no "▁b": ▁ b a
		{"a zz b", []int32{10, 6, 0, 6, 8}}, // unknown run "zz" collapses to one 0
		{"c", []int32{6, 11}},               // null score counts as 0
		{"d", []int32{6, 14}},               // a duplicated piece takes the later id
		{"a\tb", []int32{10, 0, 8}},         // tabs are not separators
		{"ＡＢ", []int32{6, 0}},               // NFKC turns them into "AB", unknown here
	} {
		if got := enc(tc.text); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("encode(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestTokenizerHandlesAnyInput(t *testing.T) {
	m := loadTestModel(t)
	for _, text := range []string{
		"\xff\xfe invalid \xc3\x28 utf8 \xed\xa0\x80 surrogate",
		strings.Repeat("\u0301", 100), // combining marks with no base
		"\U0010FFFF\U000E0001 private and tag characters",
		"\x00", "\u200b\u200d\ufeff",
	} {
		ids := m.Tokenize(text)
		if len(ids) == 0 {
			t.Errorf("Tokenize(%q) gave no tokens", text)
		}
		for _, id := range ids {
			if id < 0 || id >= m.tok.vocabSize {
				t.Errorf("Tokenize(%q) gave id %d", text, id)
			}
		}
	}
	// Each invalid byte reads as U+FFFD, which is not a piece.
	if got := m.Tokenize("\xff"); !slices.Equal(got, []int{30, 0}) {
		t.Errorf("Tokenize(0xff) = %v, want [30 0]", got)
	}
}

// TestEncodeForModelKeepsTokens checks that tokenising only a prefix of a
// long text gives exactly the tokens the model reads from the whole text,
// including when a long run of unknown characters makes one token of a
// large part of the text.
func TestEncodeForModelKeepsTokens(t *testing.T) {
	m := loadTestModel(t)
	if !m.tok.prefixSafe || m.tok.maxTokens != 128 {
		t.Fatalf("prefixSafe %v, maxTokens %d", m.tok.prefixSafe, m.tok.maxTokens)
	}
	words := []string{"memory", "agents", "café", "東京", "🎉", "don't", "x=1;", "naïve", "ﬁne", "e\u0301"}
	var b strings.Builder
	for i := 0; b.Len() < 20000; i++ {
		b.WriteString(words[i*7%len(words)])
		if i%3 == 0 {
			b.WriteString(words[i%len(words)]) // glue some words together
		}
		b.WriteByte(' ')
	}
	english := b.String()
	cjk := strings.Repeat("東京は日本の首都です。", 700) // one unknown token, 23 KB
	for name, text := range map[string]string{
		"words":            english,
		"unknown run":      cjk + " " + english,
		"spaced unknowns":  strings.Repeat("🎉 ", 3000) + english,
		"long glued words": strings.Repeat("supercalifragilistic", 500) + " " + english,
		"short":            "a few words only",
	} {
		var s tokScratch
		full := slices.Clone(m.tok.encode(text, &s))
		got := m.tok.encodeForModel(text, &s)
		n := min(len(full), m.tok.maxTokens)
		if len(got) < n || !slices.Equal(got[:n], full[:n]) {
			t.Errorf("%s: the model's tokens differ from the whole text's (%d of %d tokens)", name, len(got), len(full))
		}
		if len(text) > 3*firstCutBytes && len(got) == len(full) && name != "unknown run" {
			t.Errorf("%s: the whole text was tokenised", name)
		}
	}
}

func TestHardCut(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("ab", 600),
		strings.Repeat("é", 600),
		strings.Repeat("e\u0301\u0302", 300), // combining marks: cut before a starter
	} {
		cut := hardCut(text, 1001)
		if len(cut) > 1001 || len(cut) < 990 || !utf8.ValidString(cut) || !strings.HasPrefix(text, cut) {
			t.Errorf("hardCut(%.10q...) kept %d bytes", text, len(cut))
		}
		if rest := text[len(cut):]; norm.NFKC.String(cut)+norm.NFKC.String(rest) != norm.NFKC.String(text) {
			t.Errorf("hardCut(%.10q...) split a normalisation segment", text)
		}
	}
}

func BenchmarkTokenizeLong(b *testing.B) {
	m := loadTestModel(b)
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 2000)
	var s tokScratch
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		m.tok.encodeForModel(text, &s)
	}
}
