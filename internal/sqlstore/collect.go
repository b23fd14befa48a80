package sqlstore

import (
	"fmt"
	"time"

	"github.com/amem-dev/amem"
)

// Scanner is one row to scan: *sql.Row and *sql.Rows have it, and so do
// pgx.Row and pgx.Rows.
type Scanner interface {
	Scan(dest ...any) error
}

// Each calls fn for every row of rows, in order, and returns the first
// error: fn's as it is, then rows.Err's (the place a driver's Rows
// wrapper turns its errors into amem errors). Closing stays with the
// caller.
func Each(rows Rows, fn func(Scanner) error) error {
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Collect reads every row of rows with scan into a slice, never nil (a
// store's lists are empty, not nil), as Each does.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	out := []T{}
	err := Each(rows, func(r Scanner) error {
		v, err := scan(r)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanUsageTotal reads a row of (operation, calls, prompt tokens,
// completion tokens), the columns of the stores' usage sums.
func ScanUsageTotal(r Scanner) (amem.UsageTotal, error) {
	var u amem.UsageTotal
	return u, r.Scan(&u.Operation, &u.Calls, &u.PromptTokens, &u.CompletionTokens)
}

// UsageTotals collects the rows of a usage sum.
func UsageTotals(rows Rows) ([]amem.UsageTotal, error) {
	out, err := Collect(rows, ScanUsageTotal)
	if err != nil {
		return nil, fmt.Errorf("usage totals: %w", err)
	}
	return out, nil
}

// NotesByState reads rows of (enrichment state, note count) into a
// namespace's stats: ByState (states without notes are absent) and
// Notes, their sum. Links is left to the caller.
func NotesByState(rows Rows) (amem.NamespaceStats, error) {
	st := amem.NamespaceStats{ByState: map[amem.EnrichState]int{}}
	err := Each(rows, func(r Scanner) error {
		var (
			state string
			n     int
		)
		if err := r.Scan(&state, &n); err != nil {
			return err
		}
		st.ByState[amem.EnrichState(state)] = n
		st.Notes += n
		return nil
	})
	if err != nil {
		return amem.NamespaceStats{}, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}

// timeOf decodes a nullable nanosecond column scanned into a *int64,
// which both drivers fill (nil for NULL).
func timeOf(ns *int64) time.Time {
	if ns == nil {
		return time.Time{}
	}
	return Time(*ns, true)
}

// ScanNamespace reads a row of (name, embedder, dims, created_at).
func ScanNamespace(s Scanner) (amem.NamespaceInfo, error) {
	var (
		info    amem.NamespaceInfo
		created *int64
	)
	if err := s.Scan(&info.Name, &info.Embedder, &info.Dimensions, &created); err != nil {
		return amem.NamespaceInfo{}, err
	}
	info.CreatedAt = timeOf(created)
	return info, nil
}

// ScanLink reads a row of (source, target, reason, strength,
// created_at, kind).
func ScanLink(s Scanner) (amem.Link, error) {
	var (
		l       amem.Link
		created *int64
		kind    string
	)
	if err := s.Scan(&l.Source, &l.Target, &l.Reason, &l.Strength, &created, &kind); err != nil {
		return amem.Link{}, err
	}
	l.Kind = LinkKind(kind)
	l.CreatedAt = timeOf(created)
	return l, nil
}

// ScanVersion reads a row of (note_id, ns, version, actor, reason,
// changes, snapshot, created_at), the JSON columns decoded.
func ScanVersion(s Scanner) (amem.Version, error) {
	var (
		v                 amem.Version
		actor             string
		changes, snapshot string
		created           *int64
	)
	if err := s.Scan(&v.NoteID, &v.Namespace, &v.Version, &actor, &v.Reason, &changes, &snapshot, &created); err != nil {
		return amem.Version{}, err
	}
	v.Actor, v.CreatedAt = amem.Actor(actor), timeOf(created)
	if err := DecodeVersion(&v, changes, snapshot); err != nil {
		return amem.Version{}, err
	}
	return v, nil
}

// PutNamespace checks info and writes it through upsert, which takes
// the columns (name, embedder, dims, created_at) in the store's own SQL.
func PutNamespace(info amem.NamespaceInfo, upsert func(args ...any) error) error {
	if info.Name == "" {
		return fmt.Errorf("put namespace: %w: empty name", amem.ErrInvalid)
	}
	created, ok, err := UnixNanos(info.CreatedAt)
	var at *int64 // NULL for the zero time, in both drivers
	if ok {
		at = &created
	} else if err != nil {
		return fmt.Errorf("put namespace %s: %w", info.Name, err)
	}
	if err := upsert(info.Name, info.Embedder, info.Dimensions, at); err != nil {
		return fmt.Errorf("put namespace %s: %w", info.Name, err)
	}
	return nil
}

// Query is a store's way to run a query for the shared readers below: its
// rows, ready to read (a driver's errors turned into amem errors), and
// the function that closes them, as the two drivers close differently.
type Query func(query string, args ...any) (rows Rows, done func(), err error)

// Read runs query through q and reads its rows with read; what names the
// read in its errors.
func Read[T any](q Query, what string, read func(Rows) (T, error), query string, args ...any) (T, error) {
	var zero T
	rows, done, err := q(query, args...)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	defer done()
	v, err := read(rows)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// ReadAll is Read for a list: every row read with scan (Collect).
func ReadAll[T any](q Query, what string, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	return Read(q, what, func(r Rows) ([]T, error) { return Collect(r, scan) }, query, args...)
}
