package local

import (
	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// EmbedText is the text embedded for each note (memory.Options.EmbedText)
// under the named curator.
//
// The offline curator's notes embed their content alone. The paper's
// text (content, context, keywords and tags; Eq. 3) made an Add on the
// offline default cost 11-15 single-sentence embedding times, three
// quarters of it embedding: the note again after construction, and every
// neighbour evolution touched, each text two to three times a turn's
// length. With the content alone neither changes, an Add costs 4.2-4.7,
// and LoCoMo recall@10 on the development split went from 0.655 to 0.661
// (multi-hop 0.435 to 0.427, recall@5 0.543 to 0.525; 2026-12-03). The
// enrichment still reaches search through the full-text index, which
// holds context, keywords and tags. LLM curators keep the paper's text:
// their contexts are what it was written for, and nothing here measured
// them otherwise.
func EmbedText(curator string) func(amem.Note) string {
	return EmbedTexts[EmbedTextName(curator)]
}

// EmbedTextName names the text EmbedText gives the curator: "content"
// or "paper".
func EmbedTextName(curator string) string {
	if curator == CuratorOffline {
		return "content"
	}
	return "paper"
}

// EmbedTexts are the embedding texts by name, for flags.
var EmbedTexts = map[string]func(amem.Note) string{
	"content": memory.EmbedTextContent,
	"paper":   memory.EmbedTextPaper,
}
