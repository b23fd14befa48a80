package wire

import "github.com/amem-dev/amem"

// Shapes only the CLI prints: a person at a terminal asks for a note's
// embedding or its cost in one call, where an API client makes two.

// NoteDetail is a note with the model tokens its enrichment spent and,
// when asked for, its embedding: amem show --json.
type NoteDetail struct {
	Note
	Embedding []float32    `json:"embedding,omitempty" jsonschema:"the note's vector, only when asked for"`
	Usage     []UsageTotal `json:"usage" jsonschema:"model tokens its enrichment spent, per operation"`
}

// NoteDetailOf is n with its usage, and its embedding when withEmbedding.
func NoteDetailOf(n amem.Note, withEmbedding bool, usage []amem.UsageTotal) NoteDetail {
	d := NoteDetail{Note: NoteOf(n), Usage: List(usage, UsageTotalOf)}
	if withEmbedding {
		d.Embedding = n.Embedding
	}
	return d
}

// LinkedNote is a link seen from one of its notes, with the note at the
// other end: amem links --json.
type LinkedNote struct {
	Link
	Direction string `json:"direction" jsonschema:"out: the note asked about chose the link; in: the other note chose it"`
	Note      Note   `json:"note" jsonschema:"the note at the other end"`
}

// LinkedNoteOf is nb seen from the note self.
func LinkedNoteOf(self string, nb amem.Neighbor) LinkedNote {
	dir := "out"
	if nb.Link.Target == self {
		dir = "in"
	}
	return LinkedNote{Link: LinkOf(nb.Link), Direction: dir, Note: NoteOf(nb.Note)}
}

// NamespaceSummary is a namespace with the number of notes it holds:
// amem namespaces --json.
type NamespaceSummary struct {
	NamespaceInfo
	Notes int `json:"notes" jsonschema:"how many notes it holds"`
}

// NamespaceSummaryOf is i holding notes notes.
func NamespaceSummaryOf(i amem.NamespaceInfo, notes int) NamespaceSummary {
	return NamespaceSummary{NamespaceInfo: NamespaceInfoOf(i), Notes: notes}
}
