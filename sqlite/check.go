package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/amem-dev/amem"
)

// Report is what Check found: counts of what the database holds and every
// fault, in plain words. A report without faults is a healthy database.
type Report struct {
	Namespaces int `json:"namespaces"`
	Notes      int `json:"notes"`
	Versions   int `json:"versions"`
	Links      int `json:"links"`
	// Faults lists at most maxListed faults of each check; Unlisted
	// counts the rest.
	Faults   []Fault `json:"faults"`
	Unlisted int     `json:"unlisted,omitempty"`
}

// OK reports whether no fault was found.
func (r Report) OK() bool { return len(r.Faults) == 0 && r.Unlisted == 0 }

// Fault is one thing wrong with the database.
type Fault struct {
	// Check names the check that found it: sqlite, foreign_keys, notes,
	// namespaces, history, links, feed or queue.
	Check     string `json:"check"`
	Namespace string `json:"namespace,omitempty"`
	Note      string `json:"note,omitempty"` // the note's ID, when it is about one
	Message   string `json:"message"`
}

func (f Fault) String() string { return f.Check + ": " + f.Message }

// maxListed bounds the faults listed per check: a systematic fault would
// otherwise list every note.
const maxListed = 100

// Check verifies the database at path without changing it, and can read a
// damaged file that Open refuses:
//
//   - sqlite: SQLite's integrity_check (every page, row and index entry);
//   - foreign_keys: foreign_key_check, for tables the checks below don't
//     cover (they say more about links and versions);
//   - notes: keywords, tags and metadata are JSON of the right shape, the
//     version is at least 1;
//   - namespaces: every note's namespace is recorded, and its embedding
//     has the namespace's dimensions;
//   - history: each note's versions are exactly 1..N, N its version (or
//     k..N where version k imported the note without history), and every
//     version belongs to a note;
//   - links: both ends are notes of the link's namespace, no note links
//     to itself, strengths are in [0, 1];
//
// The checks read one snapshot, so a server may keep writing meanwhile.
// A missing file is amem.ErrNotFound; an error means the checks could
// not run, a fault that they ran and found something.
func Check(ctx context.Context, path string) (Report, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Report{}, err
	}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		return Report{}, fmt.Errorf("no database at %s: %w", abs, amem.ErrNotFound)
	} else if err != nil {
		return Report{}, err
	}
	// Its own connection, read-only on the file. In a directory that
	// takes no new files (a read-only file system) SQLite cannot make
	// the shared-memory index a WAL database is read through, and would
	// call a healthy file unreadable; there nothing can be writing it
	// either, so it is read as immutable, without that index.
	q := url.Values{"mode": {"ro"}, "_busy_timeout": {"5000"}}
	if dirUnwritable(filepath.Dir(abs)) {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	db, err := openPool(u.String(), 1)
	if err != nil {
		return Report{}, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("check %s: %w", abs, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return Report{}, fmt.Errorf("check %s: %w", abs, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`) // drops the temporary tables too
	c := &checker{ctx: ctx, conn: conn, listed: map[string]int{}}
	if !c.checkSQLite() {
		return c.r, nil
	}
	var version int
	err = conn.QueryRowContext(ctx, selectSchemaVersion).Scan(&version)
	switch {
	case err != nil && ctx.Err() == nil && !c.r.OK():
		return c.r, nil // the damage integrity_check found; nothing else is readable
	case err != nil && ctx.Err() == nil:
		c.fault("sqlite", "", "", "this is not an amem database: %v", err)
		return c.r, nil
	case err != nil:
		return Report{}, err
	case version > len(migrations):
		return Report{}, fmt.Errorf("check %s: %w: the database is at version %d, this program knows up to %d; check it with a newer amem",
			abs, ErrSchemaTooNew, version, len(migrations))
	}
	c.checkForeignKeys()
	c.checkNotes()
	c.checkNamespaces()
	c.checkHistory()
	c.checkLinks()
	c.checkFeed()
	c.checkQueue()
	c.count()
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	return c.r, nil
}

// Check verifies the store's database: see the function Check.
func (s *Store) Check(ctx context.Context) (Report, error) {
	if err := s.gate.Enter(); err != nil {
		return Report{}, err
	}
	defer s.gate.Leave()
	return Check(ctx, s.path)
}

type checker struct {
	ctx    context.Context
	conn   *sql.Conn
	r      Report
	listed map[string]int // faults listed, by check
}

func (c *checker) fault(check, ns, note, format string, args ...any) {
	if c.listed[check] == maxListed {
		c.r.Unlisted++
		return
	}
	c.listed[check]++
	c.r.Faults = append(c.r.Faults, Fault{Check: check, Namespace: ns, Note: note, Message: fmt.Sprintf(format, args...)})
}

// failed records that a check could not run: a fault too, since what it
// would have checked is unknown (usually a damaged page it had to read).
func (c *checker) failed(check string, err error) {
	if c.ctx.Err() != nil {
		return // Check returns the context's error
	}
	c.fault(check, "", "", "could not finish this check: %v", err)
}

// each runs query and calls fn with each row's scanner; it returns false
// (after recording why) if the query failed.
func (c *checker) each(check, query string, args []any, fn func(scanner) error) bool {
	rows, err := c.conn.QueryContext(c.ctx, query, args...)
	if err != nil {
		c.failed(check, err)
		return false
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			c.failed(check, err)
			return false
		}
	}
	if err := rows.Err(); err != nil {
		c.failed(check, err)
		return false
	}
	return true
}

var treeRef = regexp.MustCompile(`\bTree (\d+)\b`)

// checkSQLite runs integrity_check. It returns false when the file can't
// be read as a database at all, and the other checks would only repeat
// that.
func (c *checker) checkSQLite() bool {
	const check = "sqlite"
	names := map[string]string{} // root page -> table or index name
	rows, err := c.conn.QueryContext(c.ctx, `SELECT rootpage, type, name FROM sqlite_schema WHERE rootpage > 0`)
	if err == nil {
		for rows.Next() {
			var root, typ, name string
			if err = rows.Scan(&root, &typ, &name); err != nil {
				break
			}
			names[root] = typ + " " + name
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		if c.ctx.Err() == nil {
			c.fault(check, "", "", "the database cannot be read: %v", err)
		}
		return false
	}
	c.each(check, `PRAGMA integrity_check(`+strconv.Itoa(maxListed)+`)`, nil, func(s scanner) error {
		var line string
		if err := s.Scan(&line); err != nil {
			return err
		}
		if line == "ok" {
			return nil
		}
		// A row may hold several findings, a line each.
		for _, l := range strings.Split(line, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || l == "*** in database main ***" {
				continue
			}
			l = treeRef.ReplaceAllStringFunc(l, func(m string) string {
				if name, ok := names[treeRef.FindStringSubmatch(m)[1]]; ok {
					return name + " (" + strings.ToLower(m) + ")"
				}
				return m
			})
			c.fault(check, "", "", "SQLite integrity check: %s", l)
		}
		return nil
	})
	return true
}

// checkForeignKeys reports foreign key violations of the tables that
// checkHistory and checkLinks don't cover, such as tables later
// migrations add.
func (c *checker) checkForeignKeys() {
	const check = "foreign_keys"
	var tables []string
	if !c.each(check, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('links', 'versions')
	AND EXISTS (SELECT 1 FROM pragma_foreign_key_list(name)) ORDER BY name`, nil, func(s scanner) error {
		var t string
		if err := s.Scan(&t); err != nil {
			return err
		}
		tables = append(tables, t)
		return nil
	}) {
		return
	}
	type pair struct{ table, parent string }
	var order []pair
	n := map[pair]int{}
	for _, t := range tables {
		c.each(check, `PRAGMA foreign_key_check(`+quoteIdent(t)+`)`, nil, func(s scanner) error {
			var p pair
			var rowid, fkid sql.NullInt64
			if err := s.Scan(&p.table, &rowid, &p.parent, &fkid); err != nil {
				return err
			}
			if n[p] == 0 {
				order = append(order, p)
			}
			n[p]++
			return nil
		})
	}
	for _, p := range order {
		c.fault(check, "", "", "%d %s of table %s refer to no row of table %s", n[p], plural(n[p], "row", "rows"), p.table, p.parent)
	}
}

const selectBadNoteFields = `SELECT id, ns, version,
	CASE WHEN json_valid(keywords) THEN json_type(keywords) END,
	CASE WHEN json_valid(tags) THEN json_type(tags) END,
	CASE WHEN json_valid(tag_keys) THEN json_type(tag_keys) END,
	CASE WHEN json_valid(curator_tag_keys) THEN json_type(curator_tag_keys) END,
	CASE WHEN json_valid(metadata) THEN json_type(metadata) END
FROM notes
WHERE version < 1
	OR (CASE WHEN json_valid(keywords) THEN json_type(keywords) END) IS NOT 'array'
	OR (CASE WHEN json_valid(tags) THEN json_type(tags) END) IS NOT 'array'
	OR (CASE WHEN json_valid(tag_keys) THEN json_type(tag_keys) END) IS NOT 'array'
	OR (CASE WHEN json_valid(curator_tag_keys) THEN json_type(curator_tag_keys) END) IS NOT 'array'
	OR (CASE WHEN json_valid(metadata) THEN json_type(metadata) END) IS NOT 'object'
ORDER BY ns, id`

// checkNotes checks the fields reads decode: a note whose keywords are
// not a JSON list can't be read back.
func (c *checker) checkNotes() {
	const check = "notes"
	c.each(check, selectBadNoteFields, nil, func(s scanner) error {
		var id, ns string
		var version int64
		var kw, tags, keys, curated, meta sql.NullString
		if err := s.Scan(&id, &ns, &version, &kw, &tags, &keys, &curated, &meta); err != nil {
			return err
		}
		var bad []string
		if version < 1 {
			bad = append(bad, fmt.Sprintf("its version is %d", version))
		}
		for _, f := range []struct {
			name, want string
			got        sql.NullString
		}{{"keywords", "array", kw}, {"tags", "array", tags}, {"tag keys", "array", keys},
			{"curator tag keys", "array", curated}, {"metadata", "object", meta}} {
			switch {
			case !f.got.Valid:
				bad = append(bad, "its "+f.name+" are not valid JSON")
			case f.got.String != f.want:
				bad = append(bad, fmt.Sprintf("its %s are a JSON %s, not %s %s", f.name, f.got.String, article(f.want), f.want))
			}
		}
		c.fault(check, ns, id, "note %s (namespace %s): %s", id, ns, strings.Join(bad, "; "))
		return nil
	})
}

const (
	selectUnrecordedNamespaces = `SELECT ns, count(*) FROM notes
WHERE ns NOT IN (SELECT name FROM namespaces) GROUP BY ns ORDER BY ns`
	selectBadEmbeddings = `SELECT n.id, n.ns, length(n.embedding), s.dims
FROM notes n JOIN namespaces s ON s.name = n.ns
WHERE n.embedding IS NOT NULL AND length(n.embedding) != 4 * s.dims
ORDER BY n.ns, n.id`
)

func (c *checker) checkNamespaces() {
	const check = "namespaces"
	c.each(check, selectUnrecordedNamespaces, nil, func(s scanner) error {
		var ns string
		var n int
		if err := s.Scan(&ns, &n); err != nil {
			return err
		}
		c.fault(check, ns, "", "namespace %s holds %d %s but is not recorded, so its embedder and dimensions are unknown",
			ns, n, plural(n, "note", "notes"))
		return nil
	})
	c.each(check, selectBadEmbeddings, nil, func(s scanner) error {
		var id, ns string
		var size, dims int
		if err := s.Scan(&id, &ns, &size, &dims); err != nil {
			return err
		}
		if size%4 != 0 {
			c.fault(check, ns, id, "note %s (namespace %s) has an embedding of %d bytes, not a whole number of float32s", id, ns, size)
			return nil
		}
		c.fault(check, ns, id, "note %s has a %d-dimension embedding, but namespace %s has %d dimensions", id, size/4, ns, dims)
		return nil
	})
}

const (
	// A note's versions are 1..N exactly when there are N of them, the
	// least is 1 and the greatest N: (note_id, version) is the key. An
	// import of a note without history writes one row, at the imported
	// version k (amem.Import), so a history may start at k instead when
	// that row's actor is import. Grouping versions in key order before
	// the join is 3 times faster than grouping the join.
	selectHistoryGaps = `SELECT n.id, n.ns, n.version
FROM notes n LEFT JOIN (
	SELECT note_id, ns, count(*) AS n, min(version) AS lo, max(version) AS hi
	FROM versions GROUP BY note_id, ns) v ON v.note_id = n.id AND v.ns = n.ns
WHERE v.hi IS NOT n.version OR v.n IS NOT v.hi - v.lo + 1
	OR v.lo IS NOT 1 AND (SELECT actor FROM versions
		WHERE note_id = n.id AND ns = n.ns AND version = v.lo) IS NOT 'import'
ORDER BY n.ns, n.id`
	selectNoteVersions   = `SELECT version, actor FROM versions WHERE note_id = ? AND ns = ? ORDER BY version`
	selectOrphanVersions = `SELECT v.note_id, v.ns, count(*), (SELECT ns FROM notes WHERE id = v.note_id)
FROM versions v
WHERE NOT EXISTS (SELECT 1 FROM notes n WHERE n.ns = v.ns AND n.id = v.note_id)
GROUP BY v.ns, v.note_id ORDER BY v.ns, v.note_id`
)

func (c *checker) checkHistory() {
	const check = "history"
	type gap struct {
		id, ns  string
		version int
	}
	var gaps []gap
	c.each(check, selectHistoryGaps, nil, func(s scanner) error {
		var g gap
		if err := s.Scan(&g.id, &g.ns, &g.version); err != nil {
			return err
		}
		gaps = append(gaps, g)
		return nil
	})
	for _, g := range gaps {
		have := map[int]bool{}
		var beyond []int
		first := 1 // where the history should start
		if !c.each(check, selectNoteVersions, []any{g.id, g.ns}, func(s scanner) error {
			var v int
			var actor string
			if err := s.Scan(&v, &actor); err != nil {
				return err
			}
			if len(have) == 0 && actor == string(amem.ActorImport) && v >= 1 {
				first = v
			}
			have[v] = true
			if v < 1 || v > g.version {
				beyond = append(beyond, v)
			}
			return nil
		}) {
			return
		}
		var missing []int
		for v := first; v <= g.version; v++ {
			if !have[v] {
				missing = append(missing, v)
			}
		}
		var what []string
		switch {
		case len(have) == 0:
			what = append(what, "it has no history")
		case len(missing) > 0:
			what = append(what, fmt.Sprintf("its history lacks %s %s", plural(len(missing), "version", "versions"), numbers(missing)))
		}
		if len(beyond) > 0 {
			what = append(what, fmt.Sprintf("its history has %s %s beyond it", plural(len(beyond), "version", "versions"), numbers(beyond)))
		}
		c.fault(check, g.ns, g.id, "note %s (namespace %s) is at version %d, but %s", g.id, g.ns, g.version, strings.Join(what, ", and "))
	}
	c.each(check, selectOrphanVersions, nil, func(s scanner) error {
		var id, ns string
		var n int
		var elsewhere sql.NullString
		if err := s.Scan(&id, &ns, &n, &elsewhere); err != nil {
			return err
		}
		where := "which does not exist"
		if elsewhere.Valid {
			where = "which is in namespace " + elsewhere.String
		}
		c.fault(check, ns, id, "%d history %s of namespace %s belong to note %s, %s", n, plural(n, "row", "rows"), ns, id, where)
		return nil
	})
}

// selectBadLinks finds links with a missing end by (ns, id), which the
// index notes_ns_id answers alone; by id alone, each lookup would read the
// note's row, and took 4 times as long. Only for the links it finds does
// it look where an end is.
const selectBadLinks = `SELECT l.ns, l.source, l.target, l.strength,
	(SELECT ns FROM notes WHERE id = l.source),
	(SELECT ns FROM notes WHERE id = l.target)
FROM links l
WHERE l.source = l.target OR NOT (l.strength >= 0 AND l.strength <= 1)
	OR NOT EXISTS (SELECT 1 FROM notes WHERE ns = l.ns AND id = l.source)
	OR NOT EXISTS (SELECT 1 FROM notes WHERE ns = l.ns AND id = l.target)
ORDER BY l.ns, l.source, l.target`

func (c *checker) checkLinks() {
	const check = "links"
	c.each(check, selectBadLinks, nil, func(s scanner) error {
		var ns, src, dst string
		var strength float64
		var srcNS, dstNS sql.NullString
		if err := s.Scan(&ns, &src, &dst, &strength, &srcNS, &dstNS); err != nil {
			return err
		}
		var bad []string
		for _, end := range []struct {
			name, id string
			ns       sql.NullString
		}{{"source", src, srcNS}, {"target", dst, dstNS}} {
			switch {
			case end.ns.String == ns:
			case end.ns.Valid:
				bad = append(bad, fmt.Sprintf("its %s is a note of namespace %s: links may not cross namespaces", end.name, end.ns.String))
			default:
				bad = append(bad, fmt.Sprintf("its %s %s does not exist", end.name, end.id))
			}
		}
		if src == dst {
			bad = append(bad, "it links a note to itself")
		}
		if !(strength >= 0 && strength <= 1) {
			bad = append(bad, fmt.Sprintf("its strength %g is outside [0, 1]", strength))
		}
		c.fault(check, ns, src, "link %s -> %s (namespace %s): %s", src, dst, ns, strings.Join(bad, "; "))
		return nil
	})
}

// Feed and queue faults: notes numbered past their namespace's feed head
// (a follower would never see them), namespaces with notes but no feed,
// tombstones of notes that exist at an older number (a follower would
// drop a live note), and enrichment states whose due time contradicts
// them.
const (
	selectFeedFaults = `SELECT n.ns, n.id, n.change_seq, f.head FROM notes n
LEFT JOIN feeds f ON f.ns = n.ns
WHERE f.head IS NULL OR n.change_seq > f.head OR n.change_seq < 1`
	selectTombstoneFaults = `SELECT t.ns, t.id, t.seq, coalesce(f.head, 0), n.change_seq FROM tombstones t
LEFT JOIN feeds f ON f.ns = t.ns
LEFT JOIN notes n ON n.ns = t.ns AND n.id = t.id
WHERE f.head IS NULL OR t.seq > f.head OR (n.change_seq IS NOT NULL AND n.change_seq <= t.seq)`
	selectQueueFaults = `SELECT ns, id, enrich_state, due_at IS NOT NULL FROM notes
WHERE (enrich_state = 'done' AND due_at IS NOT NULL) OR (enrich_state = 'pending' AND due_at IS NULL)`
)

func (c *checker) checkFeed() {
	const check = "feed"
	c.each(check, selectFeedFaults, nil, func(s scanner) error {
		var ns, id string
		var seq int64
		var head sql.NullInt64
		if err := s.Scan(&ns, &id, &seq, &head); err != nil {
			return err
		}
		switch {
		case !head.Valid:
			c.fault(check, ns, id, "namespace %s has notes but no change feed: other processes' indexes can't follow it", ns)
		case seq < 1:
			c.fault(check, ns, id, "note %s has no change number: other processes' indexes would miss it", id)
		default:
			c.fault(check, ns, id, "note %s is change %d, past its namespace's feed head %d: other processes' indexes would miss it", id, seq, head.Int64)
		}
		return nil
	})
	c.each(check, selectTombstoneFaults, nil, func(s scanner) error {
		var ns, id string
		var seq, head int64
		var live sql.NullInt64
		if err := s.Scan(&ns, &id, &seq, &head, &live); err != nil {
			return err
		}
		if live.Valid && live.Int64 <= seq {
			c.fault(check, ns, id, "note %s exists but its deletion is change %d, after its own change %d: indexes would drop a live note", id, seq, live.Int64)
			return nil
		}
		c.fault(check, ns, id, "the deletion of note %s is change %d, past its namespace's feed head %d", id, seq, head)
		return nil
	})
}

func (c *checker) checkQueue() {
	const check = "queue"
	c.each(check, selectQueueFaults, nil, func(s scanner) error {
		var ns, id, state string
		var due bool
		if err := s.Scan(&ns, &id, &state, &due); err != nil {
			return err
		}
		if due {
			c.fault(check, ns, id, "note %s is done but still queued for enrichment", id)
		} else {
			c.fault(check, ns, id, "note %s is pending but not queued: no worker will enrich it", id)
		}
		return nil
	})
}

// count fills the report's counts.
func (c *checker) count() {
	for _, q := range []struct {
		table string
		n     *int
	}{
		{"namespaces", &c.r.Namespaces}, {"notes", &c.r.Notes}, {"versions", &c.r.Versions},
		{"links", &c.r.Links},
	} {
		if err := c.conn.QueryRowContext(c.ctx, `SELECT count(*) FROM `+quoteIdent(q.table)).Scan(q.n); err != nil {
			c.failed("sqlite", fmt.Errorf("count %s: %w", q.table, err))
		}
	}
}

// nullString scans NULL as "".
type nullString string

func (s *nullString) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*s = ""
	case string:
		*s = nullString(v)
	case []byte:
		*s = nullString(v)
	default:
		return fmt.Errorf("scan %T into a string", v)
	}
	return nil
}

// numbers lists version numbers: "3", "3 and 5", "3, 5 and 7".
func numbers(v []int) string {
	slices.SortFunc(v, cmp.Compare)
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
