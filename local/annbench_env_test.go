package local

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/kernel"
)

// annBenchEnv is BenchmarkApproximate's environment: a 1M store takes
// most of an hour to fill and ~10 GB, so a series of runs (pools, a
// profile, a change to the index) fills it once.
//
//	AMEM_BENCH_STORE=DIR   keep each size and corpus's store under DIR
//	                       (filled on first use, then reused)
//	AMEM_BENCH_REUSE=1     reuse the saved indexes there too, and the
//	                       exact pass's results and metrics of the run
//	                       that saved them: the first open, the build and
//	                       the exact pass are then not measured again
//	AMEM_BENCH_EFS=a,b,c   the search pools measured, the last one's heap
//	                       and RSS reported (default 128 and the default
//	                       pool)
//	AMEM_BENCH_PROFILE=F   write a CPU profile of the last pool's searches
//	                       to F
type annBenchEnv struct {
	dir     string
	reuse   bool
	efs     []int
	profOut string
}

func annBenchEnvFrom(b *testing.B) annBenchEnv {
	e := annBenchEnv{
		dir:     os.Getenv("AMEM_BENCH_STORE"),
		reuse:   os.Getenv("AMEM_BENCH_REUSE") == "1",
		profOut: os.Getenv("AMEM_BENCH_PROFILE"),
		efs:     []int{128, kernel.DefaultApproximateEf},
	}
	if s := os.Getenv("AMEM_BENCH_EFS"); s != "" {
		e.efs = nil
		for _, f := range strings.Split(s, ",") {
			ef, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || ef <= 0 {
				b.Fatalf("AMEM_BENCH_EFS=%q: want a list of positive pool sizes", s)
			}
			e.efs = append(e.efs, ef)
		}
	}
	return e
}

// storeAt returns the store's path and its index directory for n notes
// of corpus, and whether the store is already filled.
func (e annBenchEnv) storeAt(b *testing.B, n int, corpus string) (path, idxDir string, filled bool) {
	dir := b.TempDir()
	if e.dir != "" {
		dir = filepath.Join(e.dir, fmt.Sprintf("%d-%s", n, corpus))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	path, idxDir = filepath.Join(dir, "s.db"), filepath.Join(dir, "ann")
	if _, err := os.Stat(path + ".filled"); err == nil {
		return path, idxDir, true
	}
	// A fill that did not finish leaves a partial store: start over.
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
	os.RemoveAll(idxDir)
	return path, idxDir, false
}

// markFilled records that the store at path is complete.
func (e annBenchEnv) markFilled(b *testing.B, path string) {
	if e.dir == "" {
		return
	}
	if err := os.WriteFile(path+".filled", nil, 0o644); err != nil {
		b.Fatal(err)
	}
}

// profile starts the CPU profile if one was asked for and returns its
// stop.
func (e annBenchEnv) profile(b *testing.B) func() {
	if e.profOut == "" {
		return func() {}
	}
	f, err := os.Create(e.profOut)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// rssMiB is the process's resident set (Linux; 0 elsewhere): with
// vectors memory-mapped, the heap alone no longer tells what a process
// holds.
func rssMiB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// reportFiles reports the size of each kind of saved index file in dir,
// in MiB, by extension.
func reportFiles(b *testing.B, dir string) {
	m, _ := filepath.Glob(filepath.Join(dir, "[0-9a-f]*.*"))
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil {
			b.ReportMetric(float64(fi.Size())/(1<<20), "file"+filepath.Ext(p)+"-MiB")
		}
	}
}

// exactFile holds an exact run's results and metrics in a kept store's
// directory: the exact pass (a minute to load 1M vectors, 150 ms a
// search) does not change with the approximate index under study.
type exactFile struct {
	Metrics map[string]float64
	Results [][]exactHit
}

type exactHit struct {
	ID    string
	Score float64
}

// exactCached returns the exact results saved in dir, when reusing.
func (e annBenchEnv) exactCached(dir string) ([][]amem.Result, map[string]float64, bool) {
	if e.dir == "" || !e.reuse {
		return nil, nil, false
	}
	b, err := os.ReadFile(filepath.Join(dir, "exact.json"))
	if err != nil {
		return nil, nil, false
	}
	var f exactFile
	if json.Unmarshal(b, &f) != nil {
		return nil, nil, false
	}
	out := make([][]amem.Result, len(f.Results))
	for i, hits := range f.Results {
		for _, h := range hits {
			out[i] = append(out[i], amem.Result{Note: amem.Note{ID: h.ID}, Score: h.Score})
		}
	}
	return out, f.Metrics, true
}

// cacheExact saves an exact run for exactCached.
func (e annBenchEnv) cacheExact(b *testing.B, dir string, res [][]amem.Result, metrics map[string]float64) {
	if e.dir == "" {
		return
	}
	f := exactFile{Metrics: metrics}
	for _, hits := range res {
		var row []exactHit
		for _, r := range hits {
			row = append(row, exactHit{r.Note.ID, r.Score})
		}
		f.Results = append(f.Results, row)
	}
	data, err := json.Marshal(f)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "exact.json"), data, 0o644); err != nil {
		b.Fatal(err)
	}
}
