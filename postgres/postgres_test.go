package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/pgtest"
	"github.com/amem-dev/amem/postgres"
	"github.com/amem-dev/amem/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

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
