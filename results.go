package amem

// Neighbor is a linked note seen from one end of the link.
type Neighbor struct {
	Link Link
	Note Note
}

// Stats describes a namespace: counts and token usage.
type Stats struct {
	Namespace string
	NamespaceStats
	Embedder   string
	Dimensions int
	// Usage is per operation; Tokens is the namespace's total.
	Usage  []UsageTotal
	Tokens Usage
	// Retention is the namespace's policy (zero: none) and RetentionDue
	// what it would move to the trash now.
	Retention    Retention
	RetentionDue RetentionDue
}

// BrowseQuery pages through a namespace's notes as a person browses them:
// oldest or newest first, narrowed by enrichment state and a Filter.
type BrowseQuery struct {
	// After is the last ID of the previous page ("" for the first).
	After string
	// Limit is the page size, 1 or more.
	Limit int
	// Newest lists the newest first; the default is the oldest first.
	Newest bool
	// ByEventTime orders by EventTime (ties by ID) instead of by ID,
	// which is creation order: what a person reading a list of dated
	// notes expects. A note with a zero EventTime sorts as the oldest.
	ByEventTime bool
	State       EnrichState
	Filter      Filter
}
