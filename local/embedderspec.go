package local

import (
	"strings"

	"github.com/amem-dev/amem/lexical"
)

// EmbedderSpec is the Config.Embedder value that makes an embedder named
// name (its Name(), as a namespace records it): "use-lite" for any
// use-lite@VERSION, "lexical" for the lexical embedder with its default
// options, "openai:MODEL" for an OpenAI-compatible one. ok is false for a
// name no Config.Embedder makes (a program's own embedder, a lexical one
// with other options). A use-lite of another version maps to "use-lite",
// which the namespace then refuses, naming both versions.
func EmbedderSpec(name string) (spec string, ok bool) {
	switch {
	case strings.HasPrefix(name, EmbedderUSELite+"@"):
		return EmbedderUSELite, true
	case name == lexical.New(nil).Name():
		return EmbedderLexical, true
	}
	if model, ok := strings.CutPrefix(name, openAIEmbedderPrefix); ok && model != "" {
		return "openai:" + model, true
	}
	return "", false
}

// openAIEmbedderPrefix starts the name of an openai.Embedder (see its
// Name method).
const openAIEmbedderPrefix = "openai-compatible:"
