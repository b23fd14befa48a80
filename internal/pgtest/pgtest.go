// Package pgtest gives tests a PostgreSQL database of their own on the
// server that AMEM_TEST_POSTGRES names. A test binary's TestMain calls
// Main with that variable (test files read the environment; packages
// don't), which creates a database with a random name, runs the tests and
// drops it; each test then takes a fresh schema of it with URL.
//
// A server that can't be reached fails the run, never skips it: in CI a
// missing service is a failure (.ci/run starts PostgreSQL).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server tests use when AMEM_TEST_POSTGRES is not set:
// the one these machines run, trust authentication.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// StartHint says how to start the local server.
const StartHint = `start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start
(or point AMEM_TEST_POSTGRES at a server where this user may create databases)`

var (
	mu     sync.Mutex
	runURL string // the run's database, set by Main
)

// Main creates the run's database on the server at server (DefaultURL
// if empty), runs m and drops the database; it returns the exit code for
// os.Exit.
func Main(m *testing.M, server string) int {
	if server == "" {
		server = DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	name := "amem_test_" + random()
	err := admin(ctx, server, `CREATE DATABASE `+name)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: PostgreSQL at %s: %v\n%s\n", redact(server), err, StartHint)
		return 1
	}
	u, err := url.Parse(server)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: AMEM_TEST_POSTGRES is not a URL: %v\n", err)
		return 1
	}
	u.Path = "/" + name
	mu.Lock()
	runURL = u.String()
	mu.Unlock()

	code := m.Run()

	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := admin(ctx, server, `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: drop database %s: %v\n", name, err)
	}
	return code
}

// DatabaseURL is the run's database (Main must be running).
func DatabaseURL(t testing.TB) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if runURL == "" {
		t.Fatal("pgtest: call pgtest.Main from TestMain")
	}
	return runURL
}

// URL returns the URL of a new, empty schema of the run's database: a
// store opened on it creates its tables there and sees no other test's.
func URL(t testing.TB) string {
	t.Helper()
	base := DatabaseURL(t)
	schema := "t_" + random()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := admin(ctx, base, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("pgtest: %v\n%s", err, StartHint)
	}
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema) // pgx sends unknown parameters as settings
	u.RawQuery = q.Encode()
	return u.String()
}

// Exec runs one statement on the database at rawURL.
func Exec(ctx context.Context, rawURL, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, rawURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql, args...)
	return err
}

func admin(ctx context.Context, rawURL, sql string) error { return Exec(ctx, rawURL, sql) }

func random() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
