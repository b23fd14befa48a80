package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDamaged is returned (wrapped, saying what is damaged) by Open when
// the database file is damaged: a page overwritten, a truncated file, a
// file that isn't a database. Check lists every fault.
var ErrDamaged = errors.New("the database file is damaged")

const selectBtrees = `SELECT type, name, tbl_name FROM sqlite_schema
WHERE rootpage > 0 AND type IN ('table', 'index') ORDER BY rootpage`

// walkBtrees is Open's quick check: it counts the rows of every table
// and every index with SQLite's count optimisation, which visits each
// page of the b-tree and checks its header (page type, cell count, cell
// area) but decodes no row. A damaged database otherwise opens and
// serves until a request reads the bad page.
//
// Measured on a synthetic store (512-float embeddings, 2 versions and 3
// links a note) on a 2-vCPU VM shared with other builds, warm page cache,
// ranges over 2-4 runs:
//
//	                        10k notes (59 MiB)   100k notes (585 MiB)
//	this walk               22-49 ms             230-380 ms
//	PRAGMA quick_check      80-170 ms            0.8-2.3 s
//	PRAGMA integrity_check  140-310 ms           1.9-3.2 s
//	Open, with the walk     21-60 ms             250-470 ms (2 ms without)
//
// Both read nearly every page, so from a cold cache both cost the reads;
// the walk saves quick_check's CPU (it decodes every cell). In 60 trials
// overwriting one random page in the middle of the 10k file with random
// bytes or zeros, the walk and quick_check each caught all 60. The walk
// skips overflow pages (long rows) and free pages, and checks no row's
// contents: Check does. With mmap the walk took a third of the time, but
// a read error of a mapped page is a SIGBUS, which kills the process
// instead of failing the read.
func walkBtrees(ctx context.Context, db *sql.DB, path string) error {
	type btree struct{ typ, name, table string }
	var trees []btree
	rows, err := db.QueryContext(ctx, selectBtrees)
	if err != nil {
		return damaged(path, "its schema cannot be read", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b btree
		if err := rows.Scan(&b.typ, &b.name, &b.table); err != nil {
			return damaged(path, "its schema cannot be read", err)
		}
		trees = append(trees, b)
	}
	if err := rows.Err(); err != nil {
		return damaged(path, "its schema cannot be read", err)
	}
	for _, b := range trees {
		q := `SELECT count(*) FROM ` + quoteIdent(b.name) + ` NOT INDEXED`
		if b.typ == "index" {
			q = `SELECT count(*) FROM ` + quoteIdent(b.table) + ` INDEXED BY ` + quoteIdent(b.name)
		}
		var n int64
		err := db.QueryRowContext(ctx, q).Scan(&n)
		switch {
		case err == nil:
		case isCode(err, sqlite3.SQLITE_CORRUPT), isCode(err, sqlite3.SQLITE_NOTADB):
			return damaged(path, fmt.Sprintf("%s %s cannot be read", b.typ, b.name), err)
		case isCode(err, sqlite3.SQLITE_ERROR):
			// No plan counts a partial index this way: such an index is
			// left to Check.
		default:
			return fmt.Errorf("read %s %s: %w", b.typ, b.name, err)
		}
	}
	return nil
}

// damaged is ErrDamaged with what is damaged and what to do.
func damaged(path, what string, err error) error {
	return fmt.Errorf("%w: %s (%v); run 'amem check --db %s' for a full report", ErrDamaged, what, err, path)
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
