// Package hnsw is amem's approximate vector index, for namespaces too
// large for index.Flat's exact scan: a hierarchical navigable small world
// graph (Malkov and Yashunin, as in hnswlib) over int8-quantised vectors,
// with exact re-ranking by float vectors the caller supplies.
//
// # Vectors
//
// Upsert normalises each vector and keeps only int8 codes with one
// float32 scale per vector (a per-vector scale needs no training and
// suits a feed that starts empty). Scores inside the graph are int8 dot
// products (an AVX2 kernel on amd64, a portable loop elsewhere). The
// float vectors are not kept: a search that is given a Rerank function
// asks it for the vectors of its k*RerankFactor best candidates and
// ranks those by exact cosine. amem's kernel answers it from the store
// in one read.
//
// # Parameters
//
// M (16) links per node, 2*M on layer 0; EfConstruction (100) the
// candidate pool when linking; EfSearch (128) the pool when searching,
// the recall/speed knob: a search's cost grows about linearly with it.
// On the package's synthetic benchmark set (512-d, see corpus in
// data_test.go) EfSearch 64 gives recall@10 0.98 at 100k vectors but
// 0.945 at 1M; 128 gives 0.957 at 1M, and 0.995 with re-ranking.
// Re-ranking raises the pool to at least k*RerankFactor (40 for k=10).
// UpperEf (1) is the pool on the layers above 0: 1 is the paper's greedy
// descent; clusters of near-duplicates larger than the pool need more
// (see its doc).
//
// # Changes
//
// Upsert of a known id re-links its node where the new vector belongs
// (its old neighbours that linked back to it are re-linked among its
// other old neighbours first). Remove marks the node dead: it is still
// traversed, so nothing it connected is cut off, but never returned. An
// insert of a new id takes a dead node's slot and re-links it, so dead
// nodes accumulate only while a namespace shrinks; when NeedsCompaction
// reports them above Options.CompactFraction (25%) of all nodes, the
// caller builds Compacted in the background and swaps it in.
//
// # Filters
//
// Search's allow filter is exact: only allowed ids are returned; others
// are traversed. When few ids are allowed the graph search must wander
// to fill its pool; past an eighth of the nodes it gives up and scans
// every code instead, so the answer stays right but costs a scan. A
// caller that knows its filter matches few notes should call SearchAmong
// with the matching ids (a scan of just their codes, then re-ranking):
// at 100k vectors SearchAmong is the faster of the two once fewer than
// about 1 in 20 notes match (1 in 10: Search 0.9 ms, SearchAmong 1.2 ms;
// 1 in 30: 5.9 and 0.7 ms; BenchmarkFiltered). So: fewer than 5% of the
// namespace allowed, SearchAmong; otherwise Search.
//
// # Opening a large namespace
//
// WriteTo saves the graph and codes (versioned, CRC-32C checked); Read
// loads them, validating every link, in a small fraction of a build's
// time (1M x 512: 1.5 s against minutes). UpsertBatch builds in parallel on all cores; it only needs the
// index to itself, so a caller may build a new index in the background
// while searches use the old one or an exact scan, and swap it in.
//
// # When to use it
//
// index.Flat stays the default below 50k vectors: it is exact, needs no
// build, and on one core answers in under 16 ms there. This index's
// median is lower from the smallest size measured (10k x 512: 0.15 ms
// re-ranked at recall@10 0.995, against Flat's 0.87 ms), so the
// switch-over is about what a few milliseconds are worth against a
// build and approximate answers; at 50k (Flat 16 ms, this 0.2 ms) they
// are worth it. It holds about 0.35 of Flat's heap per vector
// (BenchmarkSearch, BenchmarkBuild). amem's kernel switches a namespace
// over at memory.Options.Indexes.ApproximateFrom (default 50,000) vectors, building
// in the background while the Flat answers, and saves the index in
// Options.IndexDir (package kernel).
//
// # Concurrency
//
// An Index is not safe for concurrent use, except that any number of
// Search, SearchAmong, WriteTo and Compacted calls may run at once while
// nothing changes it: callers hold a read-write lock, as with
// index.Flat. Each search takes its working memory from a sync.Pool.
package hnsw
