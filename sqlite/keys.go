package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/auth"
)

var _ auth.Store = (*Store)(nil)

const (
	insertKey = `INSERT INTO api_keys (id, name, hash, admin, namespaces, created_at)
VALUES (?, ?, ?, ?, ?, ?)`
	selectKeyByHash = `SELECT id, name, hash, admin, namespaces, created_at, revoked_at
FROM api_keys WHERE hash = ?`
	selectKeys = `SELECT id, name, hash, admin, namespaces, created_at, revoked_at
FROM api_keys ORDER BY created_at, id`
	revokeKey = `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`
)

// CreateKey stores a new API key.
func (s *Store) CreateKey(ctx context.Context, k auth.Key) error {
	return s.rawWrite(ctx, func(db *sql.DB) error {
		created, err := timeValue(k.CreatedAt)
		if err != nil {
			return err
		}
		_, err = db.ExecContext(ctx, insertKey, k.ID, k.Name, k.Hash, k.Admin,
			encodeStrings(k.Namespaces), created)
		if isConstraint(err, constraintUnique) || isConstraint(err, constraintPrimaryKey) {
			return fmt.Errorf("create key %s: %w", k.ID, amem.ErrConflict)
		}
		return err
	})
}

// KeyByHash returns the key whose token has that hash.
func (s *Store) KeyByHash(ctx context.Context, hash string) (auth.Key, error) {
	var k auth.Key
	err := s.rawRead(ctx, func(db *sql.DB) error {
		var err error
		k, err = scanKey(db.QueryRowContext(ctx, selectKeyByHash, hash))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("api key: %w", amem.ErrNotFound)
		}
		return err
	})
	return k, err
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]auth.Key, error) {
	var keys []auth.Key
	err := s.rawRead(ctx, func(db *sql.DB) error {
		rows, err := db.QueryContext(ctx, selectKeys)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			k, err := scanKey(rows)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return rows.Err()
	})
	return keys, err
}

// RevokeKey marks a key revoked.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	return s.rawWrite(ctx, func(db *sql.DB) error {
		v, err := timeValue(at)
		if err != nil {
			return err
		}
		res, err := db.ExecContext(ctx, revokeKey, v, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("api key %s: %w", id, amem.ErrNotFound)
		}
		return nil
	})
}

func scanKey(s scanner) (auth.Key, error) {
	var (
		k       auth.Key
		nss     string
		created sql.NullInt64
		revoked sql.NullInt64
	)
	if err := s.Scan(&k.ID, &k.Name, &k.Hash, &k.Admin, &nss, &created, &revoked); err != nil {
		return auth.Key{}, err
	}
	var err error
	if k.Namespaces, err = decodeStrings(nss); err != nil {
		return auth.Key{}, fmt.Errorf("api key %s: namespaces: %w", k.ID, err)
	}
	k.CreatedAt = timeOf(created)
	k.RevokedAt = timeOf(revoked)
	return k, nil
}

// rawRead and rawWrite run single statements outside amem.Tx (keys are not
// part of the note model), still refused after Close.
func (s *Store) rawRead(ctx context.Context, fn func(*sql.DB) error) (err error) {
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	defer func() { s.observe(err, false) }()
	return fn(s.read.db)
}

func (s *Store) rawWrite(ctx context.Context, fn func(*sql.DB) error) (err error) {
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	defer func() { s.observe(err, true) }()
	s.writeMu.RLock()
	defer s.writeMu.RUnlock()
	return fn(s.write.db)
}
