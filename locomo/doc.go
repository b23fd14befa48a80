// Package locomo loads the LoCoMo long-conversation memory benchmark and
// scores answers and retrievals against it the way the published
// evaluations do.
//
// LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory
// of LLM Agents", ACL 2024) has ten two-person conversations of up to 35
// dated sessions each, with about 200 questions per conversation. The A-Mem
// paper (Xu et al., "A-MEM: Agentic Memory for LLM Agents") evaluates on it.
//
// # Data and licence
//
// The data is licensed CC BY-NC 4.0 and is not shipped with this module. To
// get the full file, download data/locomo10.json from the
// snap-research/LoCoMo repository on GitHub and pass its path to Load. This
// project's development split (conv-26, conv-30 and conv-41 of that file)
// lives outside the repository, in shared/locomo/locomo-dev.json beside it;
// tests find it at ../../shared/locomo/locomo-dev.json from this package's
// directory, or at $AMEM_LOCOMO_DATA, and skip (with a message) without it.
//
// # Loading
//
// Load and Parse return Conversations holding dated Sessions of Turns (one
// per dia_id, such as "D1:3") and the Questions. Session keys are ordered
// numerically, session dates ("1:56 pm on 8 May, 2023") are parsed by
// ParseDateTime, numeric answers become text, and evidence lists are cleaned
// (see Question.Evidence). Turn.Content renders a turn as
// "Speaker: text (image: caption)" for indexing.
//
// # Categories
//
// The official mapping of question categories, used by the LoCoMo
// repository and the A-Mem paper:
//
//	1  multi-hop     answers combine several turns; gold may list parts "a, b"
//	2  temporal      when something happened
//	3  open-domain   commonsense / world knowledge; gold may add "; reason"
//	4  single-hop    one turn answers it
//	5  adversarial   a plausible question the conversation does not answer
//
// Some other harnesses (the Mem0 one) label categories 1, 3 and 4
// differently; say which mapping a table uses. Headline numbers pool
// categories 1-4 (see Aggregator).
//
// # Scoring
//
//   - F1Official: the LoCoMo repository's QA F1 (normalisation, NLTK Porter
//     stemming, multiset token overlap) with its per-category rules; built
//     from NormalizeAnswer, PorterStem, F1Score and F1MultiAnswer.
//   - F1Set and BLEU1: the token-set F1 and BLEU-1 of the A-Mem evaluation
//     harness (BLEU via NLTK's sentence_bleu with smoothing method1, on
//     WordTokenize tokens).
//   - RecallAt and HitAt: retrieval metrics over ranked dia_ids, needing no
//     LLM.
//   - Aggregator: per-category and 1-4 pooled means with a deterministic
//     report order.
package locomo
