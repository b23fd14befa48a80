// Package amem is agentic memory for LLM agents, after the A-Mem method
// (Xu et al., "A-Mem: Agentic Memory for LLM Agents", NeurIPS 2025).
//
// Every memory is a Note: content, event time, keywords, tags, a one-line
// context, an embedding and links to other notes. Adding a note runs the
// A-Mem pipeline through a Curator: note construction writes keywords,
// tags and context; the nearest notes become link candidates and the
// curator chooses links among them; the curator then evolves those
// neighbours (their context, tags and keywords), which are re-embedded in
// the same transaction. Search returns the top-k notes, each followed by
// its strongest linked notes.
//
// The root package is the domain and the interfaces it consumes
// (Embedder, Curator, Store); implementations live in subpackages: sqlite
// (storage), uselite and lexical (embedders), offline (the curator without
// an LLM), index (vector search). Package local wires the offline default:
//
//	mem, err := local.Open(ctx, local.Config{Path: "memory.db"})
//	n, err := mem.Add(ctx, amem.AddRequest{Namespace: "alice", Content: "..."})
//	res, err := mem.Search(ctx, amem.SearchRequest{Namespace: "alice", Query: "..."})
//
// Namespaces are the isolation boundary: no read, search, link or
// evolution crosses them. Every change to a note is kept as a Version and
// can be restored. A Memory is safe for concurrent use.
package amem
