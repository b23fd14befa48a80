package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem/wire"
)

// privatePG is a PostgreSQL server of one test's own, which it may stop
// and start: the shared one (pgtest) serves other packages' tests at the
// same time.
type privatePG struct {
	bin, data, sock, log string
	port                 int
	asPostgres           bool // run the tools as the postgres user (we are root)
}

// startPrivatePG initialises and starts a PostgreSQL server on a free
// port, trust authentication, and stops it when the test ends. Missing
// binaries fail the test: CI installs PostgreSQL.
func startPrivatePG(t *testing.T) *privatePG {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	var bin string
	if len(bins) > 0 {
		bin = filepath.Dir(bins[len(bins)-1])
	} else if p, err := exec.LookPath("initdb"); err == nil {
		bin = filepath.Dir(p)
	} else {
		t.Fatal("PostgreSQL's initdb and pg_ctl are not installed (looked in /usr/lib/postgresql/*/bin and $PATH); " +
			"this test runs a private server: install postgresql")
	}
	// Not t.TempDir: its parents are private to root, and initdb
	// refuses to run as root, so the server runs as postgres.
	dir, err := os.MkdirTemp("", "amem-pgrestart-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pg := &privatePG{bin: bin, data: filepath.Join(dir, "data"), sock: dir, log: filepath.Join(dir, "log")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL must run as the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		pg.asPostgres = true
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pg.port = l.Addr().(*net.TCPAddr).Port
	l.Close()

	pg.run(t, "initdb", "-D", pg.data, "--auth=trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C")
	pg.start(t)
	t.Cleanup(func() {
		_ = pg.command("pg_ctl", "-D", pg.data, "-m", "immediate", "-w", "stop").Run()
	})
	return pg
}

func (pg *privatePG) command(tool string, args ...string) *exec.Cmd {
	path := filepath.Join(pg.bin, tool)
	if pg.asPostgres {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (pg *privatePG) run(t *testing.T, tool string, args ...string) {
	t.Helper()
	if out, err := pg.command(tool, args...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(pg.log)
		t.Fatalf("%s %s: %v\n%s\n%s", tool, strings.Join(args, " "), err, out, log)
	}
}

func (pg *privatePG) start(t *testing.T) {
	t.Helper()
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s", pg.port, pg.sock)
	pg.run(t, "pg_ctl", "-D", pg.data, "-l", pg.log, "-o", opts, "-w", "-t", "30", "start")
}

// stop stops the server the hard way: no checkpoint, every connection
// cut; it recovers from its log at the next start.
func (pg *privatePG) stop(t *testing.T) {
	t.Helper()
	pg.run(t, "pg_ctl", "-D", pg.data, "-m", "immediate", "-w", "stop")
}

func (pg *privatePG) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", pg.port)
}

// answer is an HTTP answer whole.
type answer struct {
	code   int
	header http.Header
	body   []byte
	err    error
}

var restartClient = &http.Client{Timeout: 15 * time.Second}

func (s *served) do(method, path, key, body string) answer {
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := restartClient.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{code: resp.StatusCode, header: resp.Header, body: raw}
}

// checkUnavailable reports what is wrong with a for an answer that the
// store cannot be reached: a 503 problem+json with a detail that says so
// and a Retry-After.
func checkUnavailable(a answer) string {
	var p struct {
		Status int
		Detail string
	}
	switch {
	case a.code != http.StatusServiceUnavailable:
		return fmt.Sprintf("status %d, want 503: %s", a.code, a.body)
	case a.header.Get("Content-Type") != "application/problem+json":
		return fmt.Sprintf("Content-Type %q, want application/problem+json", a.header.Get("Content-Type"))
	case json.Unmarshal(a.body, &p) != nil || p.Status != 503 || !strings.Contains(p.Detail, "database"):
		return fmt.Sprintf("problem %s does not say the database is unavailable", a.body)
	case a.header.Get("Retry-After") == "":
		return "no Retry-After"
	}
	return ""
}

// TestPostgresRestartUnderLoad: PostgreSQL stops (immediate mode: every
// connection cut, crash recovery at the next start) while writers keep
// writing to one amem serve. Requests while it is down get a 503
// problem+json saying so, with Retry-After, and /readyz is 503; once it
// is back, the same amem process takes writes again without a restart,
// and every write it acknowledged, before, during or after the outage,
// is there and found by search.
func TestPostgresRestartUnderLoad(t *testing.T) {
	pg := startPrivatePG(t)
	db := pg.url()
	key := createKey(t, db, "--namespace", "load")
	srv := startServe(t, nil, db)

	const (
		before = 0 // PostgreSQL up
		down   = 1 // stopped (pg_ctl stop returned)
		coming = 2 // pg_ctl start issued, not returned
		after  = 3 // started again
	)
	var (
		phase   atomic.Int32
		mu      sync.Mutex
		acked   []written
		perWhen [4]int   // acknowledged writes by the phase they began in
		refused int      // 503s of writes begun and answered while down
		bad     []string // wrong answers, at most a few kept
		wg      sync.WaitGroup
		quit    = make(chan struct{})
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-quit:
					return
				default:
				}
				tok := fmt.Sprintf("zqw%dn%d", w, i)
				text := fmt.Sprintf("Writer %d wrote note %d during the restart test %s", w, i, tok)
				body, _ := json.Marshal(map[string]string{"content": text})
				began := phase.Load()
				a := srv.do("POST", "/v1/namespaces/load/notes", key, string(body))
				ended := phase.Load()
				mu.Lock()
				switch {
				case a.err != nil:
					bad = append(bad, fmt.Sprintf("write in phase %d: %v", began, a.err))
				case a.code == http.StatusCreated:
					var n wire.Note
					if err := json.Unmarshal(a.body, &n); err != nil || n.ID == "" {
						bad = append(bad, fmt.Sprintf("201 without a note: %s", a.body))
					} else {
						acked = append(acked, written{n.ID, tok, text})
						perWhen[began]++
					}
				default:
					if why := checkUnavailable(a); why != "" {
						bad = append(bad, fmt.Sprintf("write begun in phase %d, answered in %d: %s", began, ended, why))
					} else if began == down && ended == down {
						refused++
					}
				}
				mu.Unlock()
				if a.code != http.StatusCreated {
					time.Sleep(20 * time.Millisecond) // as a client would, if not for as long as Retry-After
				}
			}
		}()
	}
	stats := func() (int, [4]int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(acked), perWhen, refused
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				close(quit)
				wg.Wait()
				t.Fatalf("waited 15 s for %s; wrong answers: %q", what, bad)
			}
		}
	}

	waitFor("writes before the outage", func() bool { n, _, _ := stats(); return n >= 40 })
	pg.stop(t)
	phase.Store(down)
	waitFor("refused writes during the outage", func() bool { _, _, r := stats(); return r >= 20 })
	ready := srv.do("GET", "/readyz", "", "")
	if why := checkUnavailable(ready); ready.err != nil || why != "" {
		t.Errorf("/readyz while PostgreSQL is down: %v %s", ready.err, why)
	}
	search := srv.do("GET", "/v1/namespaces/load/search?mode=lexical&q=zqw0n0", key, "")
	if why := checkUnavailable(search); search.err != nil || why != "" {
		t.Errorf("search while PostgreSQL is down: %v %s", search.err, why)
	}
	phase.Store(coming)
	pg.start(t)
	phase.Store(after)
	atRestart, _, _ := stats()
	waitFor("writes after the restart", func() bool { n, _, _ := stats(); return n >= atRestart+40 })
	close(quit)
	wg.Wait()
	for _, b := range bad[:min(len(bad), 10)] {
		t.Error(b)
	}
	if len(bad) > 10 {
		t.Errorf("and %d more wrong answers", len(bad)-10)
	}
	_, when, refusals := stats()
	t.Logf("acknowledged %d writes (by phase begun: %v), %d refused with 503 while down", len(acked), when, refusals)

	waitFor("/readyz after the restart", func() bool { return srv.do("GET", "/readyz", "", "").code == 200 })
	for _, n := range acked {
		var got wire.Note
		if code := srv.call(t, "GET", "/v1/namespaces/load/notes/"+n.id, key, "", &got); code != 200 || got.Content != n.text {
			t.Errorf("acknowledged note %s (%s): %d %q", n.id, n.tok, code, got.Content)
			continue
		}
		for _, mode := range []string{"lexical", "hybrid"} {
			if !srv.found(t, key, "load", mode, n.tok, n.id) {
				t.Errorf("%s search for %s missed acknowledged note %s", mode, n.tok, n.id)
			}
		}
	}
	var st wire.Stats
	if code := srv.call(t, "GET", "/v1/namespaces/load/stats", key, "", &st); code != 200 {
		t.Errorf("stats: %d", code)
	}
	t.Logf("stats after: %+v", st)
	if t.Failed() {
		_ = srv.cmd.Process.Kill()
		<-srv.exited
		for _, l := range strings.Split(srv.stderr.String(), "\n") {
			if strings.Contains(l, "level=ERROR") {
				t.Log("amem serve: " + l)
			}
		}
	}
}
