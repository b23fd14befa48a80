package locomo

import (
	"math"
	"strings"
)

// asciiPunct is Python's string.punctuation.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// NormalizeAnswer is the official LoCoMo normalize_answer
// (task_eval/evaluation.py): remove commas, lowercase, delete every
// character of Python's string.punctuation (ASCII punctuation only; curly
// quotes and dashes stay), replace the whole words "a", "an", "the" and "and"
// with a space, and collapse whitespace to single spaces, trimmed.
//
//	NormalizeAnswer("The cat, and a Dog!") == "cat dog"
func NormalizeAnswer(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, ",", ""))
	s = strings.Map(func(r rune) rune {
		if r < 128 && strings.ContainsRune(asciiPunct, r) {
			return -1
		}
		return r
	}, s)
	s = removeArticles(s)
	return strings.Join(strings.Fields(s), " ")
}

// removeArticles implements re.sub(r'\b(a|an|the|and)\b', ' ', s) with
// Python's Unicode word characters (letters, numbers, underscore).
func removeArticles(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	run := -1 // byte offset where the current word run began
	flush := func(end int) {
		switch s[run:end] {
		case "a", "an", "the", "and":
			b.WriteByte(' ')
		default:
			b.WriteString(s[run:end])
		}
		run = -1
	}
	for i, r := range s {
		if isWordRune(r) {
			if run < 0 {
				run = i
			}
			continue
		}
		if run >= 0 {
			flush(i)
		}
		b.WriteRune(r)
	}
	if run >= 0 {
		flush(len(s))
	}
	return b.String()
}

// officialTokens normalises s and Porter-stems its tokens.
func officialTokens(s string) []string {
	toks := strings.Fields(NormalizeAnswer(s))
	for i, t := range toks {
		toks[i] = PorterStem(t)
	}
	return toks
}

// F1Score is the official LoCoMo token F1 (f1_score in
// task_eval/evaluation.py): both strings go through NormalizeAnswer, are split
// on whitespace and each token is stemmed with PorterStem; with c the size of
// the multiset intersection of the two token lists (Counter &), precision is
// c/|prediction tokens|, recall c/|gold tokens| and F1 their harmonic mean.
// It is 0 when c is 0 (including when either side has no tokens).
func F1Score(prediction, gold string) float64 {
	return tokenF1(officialTokens(prediction), officialTokens(gold))
}

func tokenF1(pred, gold []string) float64 {
	counts := make(map[string]int, len(gold))
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	p := float64(same) / float64(len(pred))
	r := float64(same) / float64(len(gold))
	return 2 * p * r / (p + r)
}

// F1MultiAnswer is the official multi-answer F1 (f1 in
// task_eval/evaluation.py), used for category 1: the prediction and the gold
// answer are each split on ',' (parts trimmed); for every gold part take the
// best F1Score against any prediction part; return the mean over gold parts.
func F1MultiAnswer(prediction, gold string) float64 {
	preds := strings.Split(prediction, ",")
	golds := strings.Split(gold, ",")
	sum := 0.0
	for _, g := range golds {
		gt := officialTokens(strings.TrimSpace(g))
		best := 0.0
		for _, p := range preds {
			if f := tokenF1(officialTokens(strings.TrimSpace(p)), gt); f > best {
				best = f
			}
		}
		sum += best
	}
	return sum / float64(len(golds))
}

// F1Official scores a prediction against a gold answer with the official
// LoCoMo QA rules by category (eval_question_answering in
// task_eval/evaluation.py):
//
//   - 1 (multi-hop): F1MultiAnswer(prediction, gold);
//   - 2 (temporal) and 4 (single-hop): F1Score(prediction, gold);
//   - 3 (open-domain): F1Score against the gold cut at its first ';' and
//     trimmed;
//   - 5 (adversarial): 1 if the lowercased prediction contains
//     "not mentioned" or "no information available", else 0 (gold ignored).
//
// Other categories, which the official script does not score, get
// F1Score(prediction, gold).
func F1Official(prediction, gold string, category int) float64 {
	switch category {
	case CategoryMultiHop:
		return F1MultiAnswer(prediction, gold)
	case CategoryOpenDomain:
		if i := strings.IndexByte(gold, ';'); i >= 0 {
			gold = gold[:i]
		}
		return F1Score(prediction, strings.TrimSpace(gold))
	case CategoryAdversarial:
		p := strings.ToLower(prediction)
		if strings.Contains(p, "not mentioned") || strings.Contains(p, "no information available") {
			return 1
		}
		return 0
	}
	return F1Score(prediction, gold)
}

// simpleTokens is the A-Mem harness's simple_tokenize: lowercase, replace
// '.', ',', '!' and '?' with spaces, split on whitespace.
func simpleTokens(s string) []string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Map(func(r rune) rune {
		switch r {
		case '.', ',', '!', '?':
			return ' '
		}
		return r
	}, s)
	return strings.Fields(s)
}

// F1Set is the token-set F1 of the A-Mem evaluation harness (also used by
// the Mem0 harness; calculate_metrics in A-Mem's utils.py): each string is
// lowercased, '.', ',', '!' and '?' are replaced with spaces and it is split
// on whitespace into a *set* of tokens; precision is |P∩G|/|P|, recall
// |P∩G|/|G|, F1 their harmonic mean, and 0 when either set is empty or they
// share no token. No stemming, no article removal; repeated tokens count once.
func F1Set(prediction, gold string) float64 {
	ps := toSet(simpleTokens(prediction))
	gs := toSet(simpleTokens(gold))
	if len(ps) == 0 || len(gs) == 0 {
		return 0
	}
	common := 0
	for t := range ps {
		if gs[t] {
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p := float64(common) / float64(len(ps))
	r := float64(common) / float64(len(gs))
	return 2 * p * r / (p + r)
}

func toSet(toks []string) map[string]bool {
	m := make(map[string]bool, len(toks))
	for _, t := range toks {
		m[t] = true
	}
	return m
}

// BLEU1 is the BLEU-1 of the A-Mem evaluation harness: NLTK's
// sentence_bleu([ref], hyp, weights=(1, 0, 0, 0),
// smoothing_function=SmoothingFunction().method1) with
// hyp = word_tokenize(prediction.lower()) and
// ref = word_tokenize(reference.lower()); tokenization is WordTokenize.
//
// With those weights the score is BP × p1, where p1 is the clipped unigram
// precision (hypothesis tokens matched against the reference's counts,
// over the hypothesis length) and BP the brevity penalty: 1 if the
// hypothesis is longer than the reference, else exp(1 − r/c) for reference
// length r and hypothesis length c. As in NLTK, the score is 0 when no
// unigram matches (before any smoothing) or the hypothesis is empty.
// Method1 adds ε = 0.1 to the zero match counts of the 2- to 4-gram
// precisions; their weights are 0, so it does not change BLEU-1.
func BLEU1(prediction, reference string) float64 {
	hyp := WordTokenize(strings.ToLower(strings.TrimSpace(prediction)))
	ref := WordTokenize(strings.ToLower(strings.TrimSpace(reference)))
	return sentenceBLEU(ref, hyp, []float64{1, 0, 0, 0})
}

// sentenceBLEU follows nltk.translate.bleu_score.corpus_bleu for a single
// reference and hypothesis, with smoothing method1 (epsilon 0.1).
func sentenceBLEU(ref, hyp []string, weights []float64) float64 {
	const epsilon = 0.1
	nums := make([]int, len(weights))
	dens := make([]int, len(weights))
	for i := range weights {
		nums[i], dens[i] = modifiedPrecision(ref, hyp, i+1)
	}
	if len(nums) == 0 || nums[0] == 0 {
		return 0
	}
	bp := brevityPenalty(len(ref), len(hyp))
	sum := 0.0
	for i, w := range weights {
		p := float64(nums[i]) / float64(dens[i])
		if nums[i] == 0 {
			p = epsilon / float64(dens[i])
		}
		if p > 0 {
			sum += w * math.Log(p)
		}
	}
	return bp * math.Exp(sum)
}

// modifiedPrecision returns NLTK's clipped n-gram match count and the
// hypothesis n-gram count (at least 1).
func modifiedPrecision(ref, hyp []string, n int) (num, den int) {
	refCounts := ngramCounts(ref, n)
	hypCounts := ngramCounts(hyp, n)
	for g, c := range hypCounts {
		num += min(c, refCounts[g])
		den += c
	}
	return num, max(den, 1)
}

func ngramCounts(toks []string, n int) map[string]int {
	m := make(map[string]int)
	for i := 0; i+n <= len(toks); i++ {
		m[strings.Join(toks[i:i+n], "\x00")]++
	}
	return m
}

func brevityPenalty(refLen, hypLen int) float64 {
	if hypLen > refLen {
		return 1
	}
	if hypLen == 0 {
		return 0
	}
	return math.Exp(1 - float64(refLen)/float64(hypLen))
}
