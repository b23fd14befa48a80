package postgres_test

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/postgres"
	"github.com/amem-dev/amem/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, os.Getenv("AMEM_TEST_POSTGRES"))) }

// mustOpen opens a store on url, closed when the test ends.
func mustOpen(t testing.TB, url string, opts *postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) amem.Store {
		return mustOpen(t, pgtest.URL(t), nil)
	})
}

// testNote returns a note of ns with the fields a store requires.
func testNote(ns, id, content string) amem.Note {
	now := time.Now().UTC()
	return amem.Note{
		ID: id, Namespace: ns, Content: content,
		EventTime: now, IngestTime: now, UpdatedAt: now,
		Keywords: []string{}, Tags: []string{}, Links: []amem.Link{},
		Embedding: []float32{1, 0}, Version: 1,
		Enrichment: amem.Enrichment{State: amem.EnrichPending},
	}
}

var idSeq atomic.Int64

// newID makes IDs unique in the run, in increasing order.
func newID() string {
	return fmt.Sprintf("%010d%016d", time.Now().UnixNano()%1e10, idSeq.Add(1))
}

// TestFeedAcrossStores: writers on two stores, a follower on a third
// (see storetest.FeedAcrossStores).
func TestFeedAcrossStores(t *testing.T) {
	url := pgtest.URL(t)
	storetest.FeedAcrossStores(t, []amem.Store{mustOpen(t, url, nil), mustOpen(t, url, nil)}, mustOpen(t, url, nil))
}

// TestFeedCommitOrder: a writer that took a number and has not committed
// holds back the next writer of the namespace, on another store, until it
// commits: the later number can't become visible first.
func TestFeedCommitOrder(t *testing.T) {
	url := pgtest.URL(t)
	a, b := mustOpen(t, url, nil), mustOpen(t, url, nil)
	ns := "commit-order"
	ctx := context.Background()
	if err := a.Update(ctx, func(tx amem.Tx) error { return tx.InsertNote(testNote(ns, newID(), "first")) }); err != nil {
		t.Fatal(err)
	}

	wrote := make(chan struct{})
	var aWrote, bCommitted time.Time
	const hold = 300 * time.Millisecond
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		err := a.Update(ctx, func(tx amem.Tx) error {
			if err := tx.InsertNote(testNote(ns, newID(), "slow")); err != nil {
				return err
			}
			aWrote = time.Now()
			close(wrote)
			time.Sleep(hold)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer wg.Done()
		<-wrote
		err := b.Update(ctx, func(tx amem.Tx) error { return tx.InsertNote(testNote(ns, newID(), "fast")) })
		bCommitted = time.Now()
		if err != nil {
			t.Error(err)
		}
	}()
	<-wrote
	// While a holds number 2 uncommitted, a reader sees head 1.
	var mid amem.Feed
	if err := b.View(ctx, func(tx amem.Tx) error {
		var err error
		mid, err = tx.FeedHead(ns)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if mid.Head != 1 {
		t.Errorf("head %d while the second writer was uncommitted, want 1", mid.Head)
	}
	// b can only commit after a did, which a does after holding its
	// number for hold. (Comparing the two return times instead raced: a's
	// goroutine may run after b's once both are unblocked.)
	if waited := bCommitted.Sub(aWrote); waited < hold {
		t.Errorf("the later writer committed %v after the earlier one took its number, before it committed", waited)
	}
	var changes []int64
	if err := b.View(ctx, func(tx amem.Tx) error {
		return tx.Changes(ns, 1, func(c amem.Change) error { changes = append(changes, c.Seq); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(changes, []int64{2, 3}) {
		t.Errorf("changes after 1: %v, want [2 3]", changes)
	}
}

// TestClaimsAcrossStores: workers of two stores racing for the same due
// notes each get distinct ones, and all of them.
func TestClaimsAcrossStores(t *testing.T) {
	url := pgtest.URL(t)
	stores := []*postgres.Store{mustOpen(t, url, nil), mustOpen(t, url, nil)}
	ctx := context.Background()
	ns := "claims-two-stores"
	now := time.Now().UTC()
	const notes = 60
	if err := stores[0].Update(ctx, func(tx amem.Tx) error {
		for i := range notes {
			n := testNote(ns, newID(), fmt.Sprint("queued ", i))
			n.Enrichment.DueAt = now.Add(-time.Duration(i) * time.Millisecond)
			if err := tx.InsertNote(n); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for si, s := range stores {
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				owner := fmt.Sprintf("store%d-worker%d", si, w)
				for {
					var refs []amem.NoteRef
					err := s.Update(ctx, func(tx amem.Tx) error {
						var err error
						refs, err = tx.ClaimDue(owner, now, now.Add(time.Hour), 2)
						return err
					})
					if err != nil {
						t.Error(err)
						return
					}
					if len(refs) == 0 {
						return
					}
					mu.Lock()
					for _, r := range refs {
						if prev, ok := seen[r.ID]; ok {
							t.Errorf("note %s claimed by %s and %s", r.ID, prev, owner)
						}
						seen[r.ID] = owner
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(seen) != notes {
		t.Errorf("%d of %d notes claimed", len(seen), notes)
	}
}

// TestMigrateConcurrently: instances opening a new database at once all
// succeed, and the schema is migrated once.
func TestMigrateConcurrently(t *testing.T) {
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := postgres.Open(context.Background(), url, nil)
			if err != nil {
				t.Error(err)
				return
			}
			s.Close()
		}()
	}
	wg.Wait()
	// Each version applied once: one row per version, 1..max.
	var rows, top int
	if err := queryInt(url, `SELECT count(*) FROM amem_schema_migrations`, &rows); err != nil {
		t.Fatal(err)
	}
	if err := queryInt(url, `SELECT max(version) FROM amem_schema_migrations`, &top); err != nil {
		t.Fatal(err)
	}
	if rows != top || top < 1 {
		t.Errorf("%d migration rows up to version %d, want one per version", rows, top)
	}
}

func TestSchemaTooNew(t *testing.T) {
	url := pgtest.URL(t)
	mustOpen(t, url, nil).Close()
	if err := pgtest.Exec(context.Background(), url, `INSERT INTO amem_schema_migrations VALUES (999, 0)`); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(context.Background(), url, nil)
	if !errors.Is(err, postgres.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer schema: %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://u:secret@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", nil)
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the password: %v", err)
	}
	if _, err := postgres.Open(ctx, "postgres://u:secret@[::1/x", nil); !errors.Is(err, amem.ErrInvalid) || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open of a bad URL: %v, want ErrInvalid without the password", err)
	}
}

// TestSurvivesDroppedConnections: the server ending every connection of
// the store, as a PostgreSQL restart does, costs at most the transactions
// running then; the pool reconnects by itself. (Restarting the server
// itself would disturb the other packages' tests that run beside these.)
func TestSurvivesDroppedConnections(t *testing.T) {
	u, err := neturl.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	app := "amem_drop_" + newID()
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s := mustOpen(t, u.String(), &postgres.Options{MinConns: 3, HealthInterval: time.Millisecond})
	ctx := context.Background()
	ns := "dropped"
	insert := func() error {
		return s.Update(ctx, func(tx amem.Tx) error { return tx.InsertNote(testNote(ns, newID(), "note")) })
	}
	if err := insert(); err != nil {
		t.Fatal(err)
	}
	if err := pgtest.Exec(ctx, pgtest.DatabaseURL(t),
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, app); err != nil {
		t.Fatal(err)
	}
	var failed int
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := insert()
		if err == nil {
			break
		}
		failed++
		t.Logf("write %d after the connections ended: %v", failed, err)
		if time.Now().After(deadline) {
			t.Fatalf("no write succeeded within 10s of the connections' end: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if failed > 1 { // the first finds its connection gone
		t.Errorf("%d writes failed before one succeeded", failed)
	}
	if err := s.Health(ctx); err != nil {
		t.Errorf("Health after reconnecting: %v", err)
	}
	var notes int
	if err := s.View(ctx, func(tx amem.Tx) error {
		st, err := tx.Stats(ns)
		notes = st.Notes
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if notes != 2 {
		t.Errorf("%d notes, want 2", notes)
	}
}

func queryInt(url, sql string, dest *int) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, sql).Scan(dest)
}

// A note stored before curator tags were kept counts every tag as the
// caller's: the migration can't tell which the curator added.
func TestMigrationCuratorTagsKeepsOldTagsAsCallers(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	if err := postgres.MigrateTo(ctx, url, postgres.CuratorTagsVersion-1); err != nil {
		t.Fatal(err)
	}
	const id = "01JAAAAAAAAAAAAAAAAAAAAAAA"
	if err := pgtest.Exec(ctx, url, `INSERT INTO notes (id, ns, content, tags, tag_keys, version, enrich_state, change_seq)
VALUES ($1, 'ns', 'tagged before', '{Work,pets}', '{work,pets}', 1, 'done', 1)`, id); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, url, nil)
	if err := s.View(ctx, func(tx amem.Tx) error {
		n, err := tx.Note("ns", id)
		if err != nil {
			return err
		}
		if n.CuratorTags != nil || !slices.Equal(n.CallerTags(), []string{"Work", "pets"}) {
			t.Errorf("curator tags %v, caller tags %v; want none and [Work pets]", n.CuratorTags, n.CallerTags())
		}
		ids, err := tx.MatchIDs("ns", amem.Filter{Tags: []string{"pets"}, TagSource: amem.TagSourceCaller})
		if err != nil {
			return err
		}
		if !slices.Equal(ids, []string{id}) {
			t.Errorf("caller tag pets matches %v, want [%s]", ids, id)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
