package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
	"github.com/amem-dev/amem/postgres"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/webhook"
)

// Store is what OpenStore returns: notes and API keys in one database.
type Store interface {
	amem.Store
	auth.Store
	webhook.Store
}

var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
)

// urlScheme matches the scheme of a URL (RFC 3986: a letter, then
// letters, digits, +, - or .) followed by "://". A Windows path (C:\ or
// C:/) has no "//" after its colon.
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// IsPostgres reports whether db names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file. Any other
// URL is an error: a URL is never taken for a file path, which would
// create a directory named after its scheme.
func IsPostgres(db string) (bool, error) {
	m := urlScheme.FindStringSubmatch(db)
	if m == nil {
		return false, nil
	}
	switch strings.ToLower(m[1]) {
	case "postgres", "postgresql":
		return true, nil
	}
	return false, fmt.Errorf("%w: database %q: unsupported scheme %s://; use a SQLite file path or a postgres:// (postgresql://) URL",
		amem.ErrInvalid, postgres.Redact(db), m[1])
}

// OpenStore opens the database db names: a PostgreSQL database for a
// postgres:// or postgresql:// URL, else the SQLite file at that path
// (created if missing). Any other URL is amem.ErrInvalid, and nothing is
// created.
func OpenStore(ctx context.Context, db string) (Store, error) {
	if db == "" {
		return nil, fmt.Errorf("local: %w: no database (Config.Path)", amem.ErrInvalid)
	}
	pg, err := IsPostgres(db)
	if err != nil {
		return nil, err
	}
	if pg {
		return postgres.Open(ctx, db, nil)
	}
	return sqlite.Open(ctx, db, nil)
}

// ShowDB returns db as it can be shown or logged: a URL without its
// password.
func ShowDB(db string) string {
	if urlScheme.MatchString(db) {
		return postgres.Redact(db)
	}
	return db
}

// IndexDir is where Open saves the approximate vector indexes of the
// database db (memory.Options.Indexes.IndexDir): beside a SQLite file, in
// <file>.ann; for PostgreSQL, in the user cache directory, under a hash
// of the URL without its password, as they are this host's cache of a
// shared database, not part of it ("" when there is no cache directory:
// then they are rebuilt at each start, in the background).
func IndexDir(db string) string {
	pg, err := IsPostgres(db)
	switch {
	case err != nil:
		return ""
	case !pg:
		return db + ".ann"
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(postgres.Redact(db)))
	return filepath.Join(cache, "amem", "ann", hex.EncodeToString(sum[:12]))
}
