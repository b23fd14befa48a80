package uselite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// referencePath holds the embeddings the reference TF.js implementation
// gives 24 texts (one text per call, 7 decimals); a copy of the project's
// shared/models/use-lite-reference.json.
const referencePath = "testdata/use-lite-reference.json"

type referenceFile struct {
	Model string `json:"model"`
	Dims  int    `json:"dims"`
	Rows  []struct {
		Text      string    `json:"text"`
		Embedding []float64 `json:"embedding"`
	} `json:"rows"`
}

var (
	testModelOnce sync.Once
	testModel     *Model
	testModelErr  error
	testModelDir  string
)

// loadTestModel loads the model from $AMEM_MODEL_DIR, as the amem command
// would, else from DefaultDir, or skips the test loudly when it is not
// there.
func loadTestModel(t testing.TB) *Model {
	t.Helper()
	testModelOnce.Do(func() {
		dir := os.Getenv("AMEM_MODEL_DIR")
		if dir == "" {
			var err error
			if dir, err = DefaultDir(); err != nil {
				testModelErr = err
				return
			}
		}
		testModelDir = dir
		testModel, testModelErr = Load(dir)
	})
	if testModelErr != nil {
		var fe *fileError
		if errors.As(testModelErr, &fe) && errors.Is(testModelErr, fs.ErrNotExist) {
			t.Skipf("\n%s\n!!! SKIPPED: the USE-lite model is not installed (%v).\n!!! Run `amem model pull` (or set AMEM_MODEL_DIR to an unpacked %s@%s) to run this test.\n%s",
				strings.Repeat("!", 78), testModelErr, PackageName, PackageVersion, strings.Repeat("!", 78))
		}
		t.Fatalf("load model: %v", testModelErr)
	}
	return testModel
}

func loadReference(t *testing.T) *referenceFile {
	t.Helper()
	data, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	var ref referenceFile
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatalf("parse %s: %v", referencePath, err)
	}
	return &ref
}

func maxAbsDiff(a []float32, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-b[i]))
	}
	return d
}

// TestReferenceEmbeddings checks the 24 reference vectors with every
// kernel set this CPU can run.
func TestReferenceEmbeddings(t *testing.T) {
	m := loadTestModel(t)
	ref := loadReference(t)
	if m.Dimensions() != ref.Dims {
		t.Fatalf("Dimensions() = %d, reference has %d", m.Dimensions(), ref.Dims)
	}
	saved := kernels
	defer func() { kernels = saved }()
	for _, ks := range availableKernels() {
		kernels = ks
		worst := 0.0
		for _, row := range ref.Rows {
			got, err := m.Embed(context.Background(), []string{row.Text})
			if err != nil {
				t.Fatalf("%s kernels: Embed(%q): %v", ks.name, row.Text, err)
			}
			d := maxAbsDiff(got[0], row.Embedding)
			worst = math.Max(worst, d)
			if d > 1e-5 {
				t.Errorf("%s kernels: Embed(%q): max component difference %.3g > 1e-5", ks.name, row.Text, d)
			}
		}
		t.Logf("%s kernels: worst component difference over %d texts: %.3g", ks.name, len(ref.Rows), worst)
	}
}

func maxDiff32(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func norm2(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// testdata/extra_reference.json holds reference vectors for long texts
// (past the 128-token limit), Unicode edge cases and the empty text
// (regenerate with tfjsbench/reference.js).
func TestExtraReference(t *testing.T) {
	m := loadTestModel(t)
	data, err := os.ReadFile("testdata/extra_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Rows []struct {
			Text      string    `json:"text"`
			Tokens    int       `json:"tokens"`
			BatchWith []string  `json:"batch_with"`
			Embedding []float64 `json:"embedding"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	for _, row := range ref.Rows {
		if n := len(m.Tokenize(row.Text)); n != row.Tokens {
			t.Errorf("%.40q: %d tokens, reference %d", row.Text, n, row.Tokens)
		}
		got, err := m.Embed(context.Background(), append([]string{row.Text}, row.BatchWith...))
		if err != nil {
			t.Fatalf("Embed(%.40q): %v", row.Text, err)
		}
		if d := maxAbsDiff(got[0], row.Embedding); d > 1e-5 {
			t.Errorf("Embed(%.40q): max component difference %.3g > 1e-5", row.Text, d)
		}
	}
}

var mixedTexts = []string{
	"", "hello", "The dog is running in the park", "emoji test 🎉🐶 party",
	"東京は日本の首都です。", "e\u0301\u0301\u0301", "\xff\xfe bad bytes", " ", "a",
	strings.Repeat("long text without end ", 200), "x = f(y) + 3 * z", "\t\n",
	"Ünïcödé ÄÖÜ ß ﬁ ligature", "👨‍👩‍👧‍👦", "\u0000", "the the the the the",
}

// TestBatchEqualsSingle checks that texts embedded together, several to a
// forward pass, get the vectors of one-text calls within 1e-5 (padding
// changes the order of a few sums), on one goroutine and on several.
func TestBatchEqualsSingle(t *testing.T) {
	m := loadTestModel(t)
	ctx := context.Background()
	texts := append(slices.Clone(mixedTexts), benchSentences...)
	for _, procs := range []int{1, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var s schedule
			s.tokenize(m, texts, &tokScratch{})
			s.plan(procs)
			if s.numRuns() >= len(texts)-len(s.empty) {
				t.Fatalf("%d texts in %d runs: nothing batched", len(texts), s.numRuns())
			}
			batch, err := m.Embed(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(batch) != len(texts) {
				t.Fatalf("%d vectors for %d texts", len(batch), len(texts))
			}
			worst := 0.0
			for i, text := range texts {
				one, err := m.Embed(ctx, []string{text})
				if err != nil {
					t.Fatal(err)
				}
				d := maxDiff32(batch[i], one[0])
				worst = max(worst, d)
				if d > 1e-5 {
					t.Errorf("%.30q: batch and single differ by %g", text, d)
				}
				if len(batch[i]) != m.Dimensions() {
					t.Errorf("%.30q: %d dimensions", text, len(batch[i]))
				}
				if n := norm2(batch[i]); math.Abs(n-1) > 1e-5 {
					t.Errorf("%.30q: norm %g, want 1", text, n)
				}
			}
			t.Logf("%d texts in %d runs: worst component difference from one-text calls %.3g", len(texts), s.numRuns(), worst)
		})
	}
}

func TestEmbedEdgeCases(t *testing.T) {
	m := loadTestModel(t)
	ctx := context.Background()
	if m.Dimensions() != 512 || m.Name() != "use-lite@0.2.0" {
		t.Errorf("Dimensions, Name = %d, %q", m.Dimensions(), m.Name())
	}
	if got, err := m.Embed(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v", got, err)
	}

	// The empty text gets the vector of an empty row, the same alone or
	// in a batch.
	empty, err := m.Embed(ctx, []string{"", "", "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if maxDiff32(empty[0], empty[1]) != 0 || maxDiff32(empty[0], m.emptyVec) != 0 {
		t.Errorf("empty text vectors differ")
	}
	if maxDiff32(empty[0], empty[2]) == 0 {
		t.Errorf("empty text has the vector of hello")
	}

	// Past the model's 128 tokens nothing counts: a megabyte of text gives
	// the vector of its first 128 tokens.
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(mixedTexts[i%len(mixedTexts)])
		b.WriteString(" word ")
	}
	huge := b.String()
	ids := m.Tokenize(huge[:4096])
	if len(ids) <= m.maxTokens {
		t.Fatalf("prefix too short: %d tokens", len(ids))
	}
	got, err := m.Embed(ctx, []string{huge})
	if err != nil {
		t.Fatal(err)
	}
	f := m.getFrame()
	defer m.putFrame(f)
	res, err := m.runBatch(f, [][]int32{toInt32(ids[:m.maxTokens])})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff32(got[0], res.f[:m.dims]); d != 0 {
		t.Errorf("1 MiB text differs from its first %d tokens by %g", m.maxTokens, d)
	}
}

func toInt32(ids []int) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}

func TestEmbedConcurrent(t *testing.T) {
	m := loadTestModel(t)
	ctx := context.Background()
	// The same call gives the same vectors, bit for bit, whichever
	// goroutine runs which pass.
	want := make([][][]float32, len(mixedTexts))
	for i := range mixedTexts {
		var err error
		if want[i], err = m.Embed(ctx, mixedTexts[i:]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				i := (g + r) % len(mixedTexts)
				got, err := m.Embed(ctx, mixedTexts[i:])
				if err != nil {
					errs <- err
					return
				}
				for j := range got {
					if maxDiff32(got[j], want[i][j]) != 0 {
						errs <- fmt.Errorf("goroutine %d: text %d differs", g, i+j)
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestEmbedCancelled(t *testing.T) {
	m := loadTestModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(ctx, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v", err)
	}
	// Cancelled while running: stops between texts.
	ctx, cancel = context.WithCancel(context.Background())
	texts := make([]string, 2000)
	for i := range texts {
		texts[i] = benchSentences[i%len(benchSentences)]
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	if _, err := m.Embed(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed cancelled midway: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Embed took %v to notice the cancellation", d)
	}
}

// TestFusedMatchesUnfused runs the graph op by op, as model.json writes it,
// and checks that the fused plan computes the same vectors.
func TestFusedMatchesUnfused(t *testing.T) {
	m := loadTestModel(t)
	g, _, err := readModelDir(testModelDir)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := compile(g, outputNode, false)
	if err != nil {
		t.Fatal(err)
	}
	fused := m.plan
	count := func(p *plan, op string) int {
		n := 0
		for _, st := range p.steps {
			if st.op == op {
				n++
			}
		}
		return n
	}
	if count(fused, "_Dense") != 10 || count(fused, "_LayerNorm") != 4 || count(fused, "MatMul")+count(fused, "Conv2D")+count(fused, "BiasAdd") != 0 {
		t.Errorf("fused plan: %d dense, %d layer norms, %d unfused matmul/conv/bias ops (%d steps, unfused %d)",
			count(fused, "_Dense"), count(fused, "_LayerNorm"), count(fused, "MatMul")+count(fused, "Conv2D")+count(fused, "BiasAdd"),
			len(fused.steps), len(plain.steps))
	}
	pm := &Model{tok: m.tok, plan: plain, dims: m.dims}
	fp, ff := plain.newFrame(), fused.newFrame()
	batch := make([][]int32, 0, len(mixedTexts))
	for _, text := range mixedTexts {
		if ids := m.Tokenize(text); len(ids) > 0 {
			batch = append(batch, toInt32(ids))
		}
	}
	a, err := pm.runBatch(fp, batch)
	if err != nil {
		t.Fatal(err)
	}
	fm := &Model{tok: m.tok, plan: fused, dims: m.dims}
	b, err := fm.runBatch(ff, batch)
	if err != nil {
		t.Fatal(err)
	}
	if !sameShape(a.shape(), b.shape()) {
		t.Fatalf("shapes %v and %v", a.shape(), b.shape())
	}
	if d := maxDiff32(a.f[:a.size()], b.f[:b.size()]); d > 1e-6 {
		t.Errorf("fused and unfused plans differ by %g", d)
	}
	// A batch through the graph also equals one text at a time.
	for i, ids := range batch {
		one, err := fm.runBatch(ff, [][]int32{ids})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff32(one.f[:m.dims], b.f[i*m.dims:(i+1)*m.dims]); d > 1e-6 {
			t.Errorf("text %d: graph batch and single differ by %g", i, d)
		}
	}
}

// TestDamagedModel checks that every kind of damage is an error naming the
// file and the command that repairs it.
func TestDamagedModel(t *testing.T) {
	loadTestModel(t)
	src := testModelDir
	for _, tc := range []struct {
		name   string
		damage func(dir string) error
		want   string
	}{
		{"missing shard", func(d string) error { return os.Remove(filepath.Join(d, "dist", "group1-shard3of7")) }, "group1-shard3of7 is missing"},
		{"truncated shard", func(d string) error { return os.Truncate(filepath.Join(d, "dist", "group1-shard7of7"), 1000) }, "group1-shard7of7 has 1000 bytes"},
		{"altered shard", func(d string) error {
			p := filepath.Join(d, "dist", "group1-shard1of7")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[12345] ^= 1
			return os.WriteFile(p, b, 0o644)
		}, "group1-shard1of7 has sha256"},
		{"missing model.json", func(d string) error { return os.Remove(filepath.Join(d, "dist", "model.json")) }, "model.json is missing"},
		{"missing licence", func(d string) error { return os.Remove(filepath.Join(d, "LICENSE")) }, "LICENSE is missing"},
		{"unreadable shard", func(d string) error {
			p := filepath.Join(d, "dist", "group1-shard2of7")
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755) // a directory where the shard should be
		}, "group1-shard2of7 cannot be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range modelFiles {
				b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f.path)))
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, filepath.FromSlash(f.path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.damage(dir); err != nil {
				t.Fatal(err)
			}
			m, err := Load(dir)
			if err == nil {
				t.Fatalf("Load succeeded on a model with a %s", tc.name)
			}
			if m != nil {
				t.Errorf("Load returned a model with its error")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "amem model pull") {
				t.Errorf("Load error %q does not say %q and what to run", err, tc.want)
			}
			if strings.Contains(tc.name, "missing") && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error for a missing file does not wrap fs.ErrNotExist")
			}
			if err := verifyDir(dir); err == nil {
				t.Errorf("verifyDir accepted the damaged model")
			}
		})
	}
}

func TestDefaultDir(t *testing.T) {
	// The command's variable is the command's business, not this package's.
	t.Setenv("AMEM_MODEL_DIR", "/some/where")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	t.Setenv("HOME", "/home/u")
	d, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && d != "/cache/amem/models/use-lite-0.2.0" {
		t.Errorf("DefaultDir = %q", d)
	}
}
