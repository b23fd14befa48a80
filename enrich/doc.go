// Package enrich is the A-Mem enrichment of a memory's notes: a note's
// construction (keywords, tags, context), its links to its nearest notes,
// their evolution and supersession, as the curator decides; the claims
// that let one caller at a time, across processes, enrich a note
// (claim.go); and the background workers' loop (Engine.Work).
//
// The protocol (enrich.go): ask the curator and the embedder outside any
// transaction; write the whole decision in one transaction, every note
// compare-and-set on its version, a neighbour changed meanwhile merged
// three-way (diff.go) and re-embedded outside it; release the claim
// inside that transaction, so a claimant that lost its claim writes
// nothing; record the tokens spent whatever happens.
//
// The engine reads and writes the store, embeds and asks for nearest
// notes through Host, which package memory implements; it imports no
// store, server or command (imports_test.go holds the rule).
package enrich
