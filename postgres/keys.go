package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
)

var _ auth.Store = (*Store)(nil)

// API keys live in the same database as the notes, so every instance
// reads the same keys: a key created or revoked anywhere counts on every
// instance at its next request (auth reads the key on each one).
const (
	insertKey = `INSERT INTO api_keys (id, name, hash, admin, namespaces, created_at)
VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`
	selectKeyByHash = `SELECT id, name, hash, admin, namespaces, created_at, revoked_at
FROM api_keys WHERE hash = $1`
	selectKeys = `SELECT id, name, hash, admin, namespaces, created_at, revoked_at
FROM api_keys ORDER BY created_at, id`
	revokeKey = `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`
)

// CreateKey stores a new API key; an existing ID (or token hash) is
// amem.ErrConflict.
func (s *Store) CreateKey(ctx context.Context, k auth.Key) error {
	return s.Update(ctx, func(atx amem.Tx) error {
		t := atx.(*tx)
		if err := checkText("api key", append([]string{k.ID, k.Name, k.Hash}, k.Namespaces...)...); err != nil {
			return err
		}
		created, err := timeValue(k.CreatedAt)
		if err != nil {
			return err
		}
		tag, err := t.exec(insertKey, k.ID, k.Name, k.Hash, k.Admin, stringsValue(k.Namespaces), created)
		if err != nil {
			return fmt.Errorf("create key %s: %w", k.ID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("create key %s: %w", k.ID, amem.ErrConflict)
		}
		return nil
	})
}

// KeyByHash returns the key whose token has that hash.
func (s *Store) KeyByHash(ctx context.Context, hash string) (auth.Key, error) {
	var k auth.Key
	err := s.View(ctx, func(atx amem.Tx) error {
		keys, err := atx.(*tx).keys(selectKeyByHash, hash)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			return fmt.Errorf("api key: %w", amem.ErrNotFound)
		}
		k = keys[0]
		return nil
	})
	return k, err
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]auth.Key, error) {
	var keys []auth.Key
	err := s.View(ctx, func(atx amem.Tx) error {
		var err error
		keys, err = atx.(*tx).keys(selectKeys)
		return err
	})
	return keys, err
}

// RevokeKey marks a key revoked; revoking again keeps the first time.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	return s.Update(ctx, func(atx amem.Tx) error {
		v, err := timeValue(at)
		if err != nil {
			return err
		}
		tag, err := atx.(*tx).exec(revokeKey, v, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("api key %s: %w", id, amem.ErrNotFound)
		}
		return nil
	})
}

func (t *tx) keys(query string, args ...any) ([]auth.Key, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (auth.Key, error) {
		var (
			k                auth.Key
			created, revoked pgtype.Int8
		)
		if err := row.Scan(&k.ID, &k.Name, &k.Hash, &k.Admin, &k.Namespaces, &created, &revoked); err != nil {
			return auth.Key{}, err
		}
		k.Namespaces = stringsOf(k.Namespaces)
		k.CreatedAt, k.RevokedAt = timeOf(created), timeOf(revoked)
		return k, nil
	})
	if errors.Is(err, pgx.ErrNoRows) {
		err = nil
	}
	return keys, mapError(err)
}
