package wire

// The envelopes the HTTP API and MCP answer with: an object around a
// list, so that a field can be added beside it later without breaking
// clients, and because MCP's structured results must be objects.

// NotePage is a page of notes.
type NotePage struct {
	Notes []Note `json:"notes" jsonschema:"the notes, in ID (creation) order: oldest first unless asked for newest"`
	// Next is the After value of the next page; empty on the last page.
	Next string `json:"next,omitempty" jsonschema:"pass as after for the next page; absent on the last page"`
}

// ResultList is a search's context list.
type ResultList struct {
	Results []Result `json:"results" jsonschema:"the direct hits, best first, then the notes linked to them"`
}

// NeighborList is the notes linked to one note.
type NeighborList struct {
	Links []Neighbor `json:"links" jsonschema:"the linked notes, strongest link first"`
}

// VersionList is a note's history.
type VersionList struct {
	Versions []Version `json:"versions" jsonschema:"every version, oldest first"`
}

// UsageList is the model tokens a note's enrichment spent.
type UsageList struct {
	Usage []UsageTotal `json:"usage" jsonschema:"model tokens per operation"`
}

// NamespaceList is the namespaces a caller may reach.
type NamespaceList struct {
	Namespaces []NamespaceInfo `json:"namespaces" jsonschema:"the namespaces"`
}

// Deleted answers a delete.
type Deleted struct {
	Deleted string `json:"deleted" jsonschema:"the ID of the deleted note"`
}
