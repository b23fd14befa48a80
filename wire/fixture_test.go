package wire_test

import (
	"time"

	"github.com/amem-dev/amem"
)

// Fully populated domain values: every field, nested ones included, is
// set (TestFixturesAreFull checks), so that the golden files show every
// field a wire type can carry.

var (
	eventTime  = time.Date(2023, 5, 25, 13, 56, 0, 0, time.UTC)
	ingestTime = time.Date(2026, 11, 20, 10, 0, 0, 123456789, time.UTC)
	updatedAt  = time.Date(2026, 11, 20, 10, 0, 1, 0, time.FixedZone("CET", 3600))
	dueAt      = time.Date(2026, 11, 20, 10, 5, 0, 0, time.UTC)
	validUntil = time.Date(2023, 6, 2, 9, 0, 0, 0, time.UTC)
)

const (
	noteID  = "01M8W34RYXBX4APF6ZFM7DKX9V"
	otherID = "01M8W34SN1HS8E9SWBB08W04F0"
)

func fullLink() amem.Link {
	return amem.Link{Source: otherID, Target: noteID, Reason: "both are about Caroline's adoption plans",
		Strength: 0.61, CreatedAt: updatedAt, Kind: amem.LinkSupersedes}
}

func fullNote() amem.Note {
	return amem.Note{
		ID: noteID, Namespace: "demo",
		Content:   "Caroline: I'm researching adoption agencies, I want to give a kid a loving home.",
		EventTime: eventTime, IngestTime: ingestTime, UpdatedAt: updatedAt,
		Keywords:    []string{"adoption agencies", "Caroline"},
		Tags:        []string{"adoption", "family"},
		CuratorTags: []string{"family"},
		Context:     "On 25 May 2023, Caroline talks about researching adoption agencies (family).",
		// Both marks set, so that the golden files show caller_set full.
		CallerKeywords: true,
		CallerContext:  true,
		Metadata:       map[string]string{"source": "chat", "speaker": "Caroline"},
		Embedding:      []float32{0.25, -0.5},
		Links:          []amem.Link{fullLink()},
		Version:        3,
		Enrichment: amem.Enrichment{State: amem.EnrichFailed, Error: "curator: the model timed out",
			Attempts: 2, At: updatedAt, DueAt: dueAt},
		ValidUntil: validUntil, SupersededBy: otherID, CallerValidity: true,
	}
}

func fullResult() amem.Result {
	return amem.Result{Note: fullNote(), Score: 0.61, Kind: amem.Linked, Via: otherID}
}

func fullNeighbor() amem.Neighbor {
	return amem.Neighbor{Link: fullLink(), Note: fullNote()}
}

func fullVersion() amem.Version {
	n := fullNote()
	return amem.Version{
		NoteID: noteID, Namespace: "demo", Version: 3, Actor: amem.ActorEvolve,
		Reason:  "evolved by new note " + otherID,
		Changes: []amem.FieldChange{{Field: "tags", Old: `["caroline"]`, New: `["caroline","family"]`}},
		Snapshot: amem.Snapshot{Content: n.Content, EventTime: n.EventTime, Keywords: n.Keywords,
			Tags: n.Tags, CuratorTags: n.CuratorTags, Context: n.Context, Metadata: n.Metadata,
			ValidUntil: n.ValidUntil, SupersededBy: n.SupersededBy,
			CallerKeywords: n.CallerKeywords, CallerContext: n.CallerContext},
		CreatedAt: updatedAt,
	}
}

func fullUsageTotal() amem.UsageTotal {
	return amem.UsageTotal{Operation: "construct", Calls: 2, Usage: amem.Usage{PromptTokens: 362, CompletionTokens: 90}}
}

func fullStats() amem.Stats {
	return amem.Stats{
		Namespace: "demo",
		NamespaceStats: amem.NamespaceStats{Notes: 4,
			ByState: map[amem.EnrichState]int{amem.EnrichDone: 3, amem.EnrichPending: 1}, Links: 5},
		Embedder: "use-lite", Dimensions: 512,
		Usage:        []amem.UsageTotal{fullUsageTotal()},
		Tokens:       amem.Usage{PromptTokens: 362, CompletionTokens: 90},
		Retention:    amem.Retention{MaxAge: 90 * 24 * time.Hour, MaxNotes: 1000},
		RetentionDue: amem.RetentionDue{Notes: 1, Oldest: amem.EventKey{Time: eventTime, ID: fullNote().ID}},
	}
}

func fullNamespaceInfo() amem.NamespaceInfo {
	return amem.NamespaceInfo{Name: "demo", Embedder: "use-lite", Dimensions: 512, CreatedAt: ingestTime}
}

func fullTrashed() amem.Trashed {
	return amem.Trashed{Note: fullNote(), Versions: []amem.Version{fullVersion()},
		DeletedAt: time.Date(2026, 12, 6, 2, 40, 0, 0, time.UTC)}
}
