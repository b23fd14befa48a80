// Package search is amem's search over one namespace, as a pipeline of
// small steps over the namespace's indexes (Namespace):
//
//	Query ─▶ the rankings, each read to Depth whatever k (Namespace.Vectors, .Text)
//	      ─▶ order, by mode:
//	           vector: by cosine │ lexical: by BM25 │
//	           hybrid, by the namespace's profile (profile.go):
//	             general: the notes within Depth of either ranking, by relevance
//	             conversation: an Order of its own (package search/conversation)
//	           ─▶ deeper tiers, for k past the first tier's notes: by relevance
//	      ─▶ the notes whose content is the query first (Namespace.SameContent)
//	      ─▶ each hit scored by its relevance in [0, 1] (relevance.go), measured
//	         as far as hits are read; those below MinScore left out; the first k
//	      ─▶ Expand: the linked notes that follow each hit (expand.go)
//
// Every depth is fixed, and a deeper tier only appends, so the first n hits
// of a search are the first n of any search for more. What only suits
// dialogue (the reply and feedback rankings, the learned ranker) lives in
// package search/conversation and comes in as an Order; this package knows
// nothing of it.
//
// The package reads no store: the caller (package amem) catches the
// namespace's indexes up with the store's change feed, applies the filter
// inside the Namespace it hands over, and loads the notes of the hits.
package search
