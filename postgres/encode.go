package postgres

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/sqlstore"
)

// Encodings of Go values in columns, package sqlstore's (shared with
// package sqlite, so that both stores hold and return exactly the same
// values) in PostgreSQL's types:
//
//   - times are bigint unix nanoseconds, read back as UTC; the zero time is
//     NULL. timestamptz keeps microseconds only, and the store must give
//     back the nanoseconds it was given. Times outside int64 nanoseconds
//     (before 1677 or after 2262) are amem.ErrInvalid.
//   - embeddings are bytea of little-endian float32s; nil or empty is NULL.
//   - keywords, tags and their lowercased keys are text[], '{}' when empty;
//     metadata is jsonb, sent as JSON text (pgx passes a string to jsonb
//     as it is), '{}' when empty, so that filters test pairs with one
//     containment (@>).
//   - PostgreSQL text can't hold NUL bytes; a string with one is
//     amem.ErrInvalid before it reaches the server, which would fail the
//     statement and with it the transaction.

// timeValue encodes t for a nullable bigint column (see
// sqlstore.UnixNanos).
func timeValue(t time.Time) (*int64, error) {
	ns, ok, err := sqlstore.UnixNanos(t)
	if !ok {
		return nil, err
	}
	return &ns, nil
}

// timeOf decodes a nullable bigint column written by timeValue.
func timeOf(v pgtype.Int8) time.Time { return sqlstore.Time(v.Int64, v.Valid) }

// stringsValue is s for a text[] column, never NULL.
func stringsValue(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// stringsOf is a scanned text[], never nil.
func stringsOf(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// checkText is amem.ErrInvalid if any of the strings holds a NUL byte,
// which PostgreSQL text refuses.
func checkText(field string, ss ...string) error {
	for _, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%w: %s holds a NUL byte, which PostgreSQL text cannot store", amem.ErrInvalid, field)
		}
	}
	return nil
}

// checkNoteText is checkText over every text field of n.
func checkNoteText(n amem.Note) error {
	if err := checkText("content", n.Content); err != nil {
		return err
	}
	if err := checkText("context", n.Context, n.Enrichment.Error); err != nil {
		return err
	}
	if err := checkText("keywords", n.Keywords...); err != nil {
		return err
	}
	if err := checkText("tags", n.Tags...); err != nil {
		return err
	}
	for k, v := range n.Metadata {
		if err := checkText("metadata", k, v); err != nil {
			return err
		}
	}
	return nil
}
