package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/amem-dev/amem/internal/sqlstore"
)

// ErrSchemaTooNew is returned by Open when the database was migrated by a
// newer version of this package than the running one: its schema may hold
// what this code would misread or lose.
var ErrSchemaTooNew = errors.New("database schema is newer than this program")

// migrations are the schema's numbered changes: migrations[i] is version
// i+1. Open applies the missing ones in order, in one transaction, and
// records each in schema_migrations. Never edit a released migration;
// append a new one.
var migrations = []string{
	migration1,
	migration2,
	migration3,
	migration4,
	migration5,
	migration6,
	migrationCuratorTags,
	migrationTrash,
	migrationSupersession,
	migrationProvenance,
	migrationRetention,
}

// migration6 adds webhooks and their outbox. webhook_events holds one row
// per event and webhook (written by RecordEvent in the note's own
// transaction), deleted once delivered; next_at is when it is next due,
// NULL once given up; lease_owner and lease_until are the claim of the
// worker sending it. AUTOINCREMENT, so that an event ID, which receivers
// deduplicate by, is never reused after a delivered row is deleted.
// webhooks_ns makes RecordEvent's check of a namespace without webhooks
// one index probe.
const migration6 = `
CREATE TABLE webhooks (
	id                TEXT PRIMARY KEY,
	ns                TEXT NOT NULL,
	url               TEXT NOT NULL,
	secret            TEXT NOT NULL,
	kinds             TEXT NOT NULL,
	created_at        INTEGER NOT NULL,
	delivered         INTEGER NOT NULL DEFAULT 0,
	last_delivered_at INTEGER,
	last_error        TEXT NOT NULL DEFAULT '',
	last_error_at     INTEGER
) STRICT;
CREATE INDEX webhooks_ns ON webhooks (ns);
CREATE TABLE webhook_events (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	webhook_id  TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	ns          TEXT NOT NULL,
	note_id     TEXT NOT NULL,
	version     INTEGER NOT NULL,
	kind        TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	attempts    INTEGER NOT NULL DEFAULT 0,
	next_at     INTEGER,
	lease_owner TEXT,
	lease_until INTEGER
) STRICT;
CREATE INDEX webhook_events_due ON webhook_events (next_at) WHERE next_at IS NOT NULL;
CREATE INDEX webhook_events_note ON webhook_events (webhook_id, note_id, id);
`

// migrationCuratorTags keeps where each tag came from: curator_tag_keys
// holds the keys (as tag_keys) of the tags the curator added. A note
// stored before it has none, so its tags all count as the caller's: the
// history can't always tell which tags the curator gave.
const migrationCuratorTags = `
ALTER TABLE notes ADD COLUMN curator_tag_keys TEXT NOT NULL DEFAULT '[]';
`

// migrationProvenance keeps which of a note's keywords and context the
// caller wrote (sqlstore.CallerAttrs: bit 1 keywords, bit 2 context),
// which the curator then leaves alone. A note stored before it gets a
// mark where its history shows the caller (actor user) made the last
// change to the field and the field is not empty: that is the text the
// note's reader sees as theirs, which a re-enrichment would otherwise
// overwrite. A field the curator wrote last, or an empty one (a content
// edit cleared it for the curator to fill), stays the curator's.
const migrationProvenance = `
ALTER TABLE notes ADD COLUMN caller_attrs INTEGER NOT NULL DEFAULT 0;
UPDATE notes SET caller_attrs =
	(CASE WHEN json_array_length(keywords) > 0 AND (SELECT v.actor FROM versions v, json_each(v.changes) c
		WHERE v.note_id = notes.id AND json_extract(c.value, '$.field') = 'keywords'
		ORDER BY v.version DESC LIMIT 1) = 'user' THEN 1 ELSE 0 END) |
	(CASE WHEN context <> '' AND (SELECT v.actor FROM versions v, json_each(v.changes) c
		WHERE v.note_id = notes.id AND json_extract(c.value, '$.field') = 'context'
		ORDER BY v.version DESC LIMIT 1) = 'user' THEN 2 ELSE 0 END);
`

// migration5 drops the full-text index: each process now keeps its own
// per namespace (package lexindex), following the change feed, so that
// ranking is the same on every store and one namespace's statistics and
// cost never depend on another's. Writes no longer feed an FTS5 table.
const migration5 = `
DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_delete;
DROP TRIGGER notes_fts_update;
DROP TABLE notes_fts;
`

// migration4 adds the change feed, the enrichment queue and claims.
//
// feeds holds each namespace's last change number (head), taken by every
// writing transaction with an UPDATE of its row, which serialises a
// namespace's writers until commit, so numbers commit in order. notes
// carry the number of their last change (change_seq); a deletion leaves a
// tombstone. Existing notes become change 1 of their namespace.
//
// due_at is when a note is next due for background enrichment (NULL: not
// queued); notes_due is partial, so done notes cost the queue nothing.
// claim_owner and claim_until are the claim of the enrichment running on
// the note, in whichever process. Pending notes are due at once; failed
// ones with retries left (the default MaxAttempts, 5) at their last
// attempt.
const migration4 = `
ALTER TABLE notes ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE notes ADD COLUMN due_at INTEGER;
ALTER TABLE notes ADD COLUMN claim_owner TEXT;
ALTER TABLE notes ADD COLUMN claim_until INTEGER;

CREATE TABLE feeds (
	ns      TEXT PRIMARY KEY,
	head    INTEGER NOT NULL,
	horizon INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE tombstones (
	ns         TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	id         TEXT NOT NULL,
	deleted_at INTEGER,
	PRIMARY KEY (ns, seq, id)
) STRICT, WITHOUT ROWID;

INSERT INTO feeds (ns, head) SELECT DISTINCT ns, 1 FROM notes;
UPDATE notes SET change_seq = 1;
UPDATE notes SET due_at = coalesce(ingest_time, 0) WHERE enrich_state = 'pending';
UPDATE notes SET due_at = coalesce(enrich_at, 0) WHERE enrich_state = 'failed' AND enrich_attempts < 5;

CREATE INDEX notes_ns_change ON notes (ns, change_seq);
CREATE INDEX notes_due ON notes (due_at) WHERE due_at IS NOT NULL;
`

// migration3 indexes usage by note, for a note's token costs.
const migration3 = `
CREATE INDEX usage_ns_note ON usage (ns, note_id);
`

// migration2 adds API keys (package auth): only the token's SHA-256 hash
// is stored; namespaces is a JSON list.
const migration2 = `
CREATE TABLE api_keys (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL DEFAULT '',
	hash       TEXT NOT NULL UNIQUE,
	admin      INTEGER NOT NULL,
	namespaces TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
) STRICT;
`

// migration1 is the first schema.
//
// notes.seq is an INTEGER PRIMARY KEY, an alias of the rowid, because the
// full-text index refers to notes by rowid: a table without one may have
// its rowids renumbered by VACUUM. The UNIQUE (ns, id) index lets links
// and versions reference a note together with its namespace, so that a
// link across namespaces can't exist even by mistake.
//
// notes_fts is a contentless FTS5 table (the text stays only in notes)
// with contentless_delete, so triggers delete index rows by rowid without
// re-supplying the old text. Keywords and tags are indexed as words, not
// as JSON. Its rowid is notes.seq.
//
// tag_keys holds the lowercased tags that MatchIDs compares against
// (SQLite's lower() folds ASCII only).
const migration1 = `
CREATE TABLE namespaces (
	name       TEXT PRIMARY KEY,
	embedder   TEXT NOT NULL,
	dims       INTEGER NOT NULL,
	created_at INTEGER
) STRICT;

CREATE TABLE notes (
	seq             INTEGER PRIMARY KEY,
	id              TEXT NOT NULL UNIQUE,
	ns              TEXT NOT NULL,
	content         TEXT NOT NULL,
	event_time      INTEGER,
	ingest_time     INTEGER,
	updated_at      INTEGER,
	keywords        TEXT NOT NULL DEFAULT '[]',
	tags            TEXT NOT NULL DEFAULT '[]',
	tag_keys        TEXT NOT NULL DEFAULT '[]',
	context         TEXT NOT NULL DEFAULT '',
	metadata        TEXT NOT NULL DEFAULT '{}',
	embedding       BLOB,
	version         INTEGER NOT NULL,
	enrich_state    TEXT NOT NULL,
	enrich_error    TEXT NOT NULL DEFAULT '',
	enrich_attempts INTEGER NOT NULL DEFAULT 0,
	enrich_at       INTEGER
) STRICT;
CREATE UNIQUE INDEX notes_ns_id ON notes (ns, id);
CREATE INDEX notes_ns_state ON notes (ns, enrich_state, id);
CREATE INDEX notes_ns_event ON notes (ns, event_time);

CREATE TABLE links (
	ns         TEXT NOT NULL,
	source     TEXT NOT NULL,
	target     TEXT NOT NULL,
	reason     TEXT NOT NULL DEFAULT '',
	strength   REAL NOT NULL,
	created_at INTEGER,
	PRIMARY KEY (source, target),
	FOREIGN KEY (ns, source) REFERENCES notes (ns, id) ON DELETE CASCADE,
	FOREIGN KEY (ns, target) REFERENCES notes (ns, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX links_target ON links (target);
CREATE INDEX links_ns ON links (ns);

CREATE TABLE versions (
	note_id    TEXT NOT NULL,
	ns         TEXT NOT NULL,
	version    INTEGER NOT NULL,
	actor      TEXT NOT NULL,
	reason     TEXT NOT NULL DEFAULT '',
	changes    TEXT NOT NULL DEFAULT '[]',
	snapshot   TEXT NOT NULL,
	created_at INTEGER,
	PRIMARY KEY (note_id, version),
	FOREIGN KEY (ns, note_id) REFERENCES notes (ns, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE usage (
	seq               INTEGER PRIMARY KEY,
	ns                TEXT NOT NULL,
	note_id           TEXT NOT NULL DEFAULT '',
	operation         TEXT NOT NULL,
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	at                INTEGER
) STRICT;
CREATE INDEX usage_ns_operation ON usage (ns, operation);

CREATE VIRTUAL TABLE notes_fts USING fts5 (
	content, context, keywords, tags,
	content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
	INSERT INTO notes_fts (rowid, content, context, keywords, tags) VALUES (
		new.seq, new.content, new.context,
		(SELECT group_concat(value, ' ') FROM json_each(new.keywords)),
		(SELECT group_concat(value, ' ') FROM json_each(new.tags)));
END;

CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
	DELETE FROM notes_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER notes_fts_update AFTER UPDATE OF content, context, keywords, tags ON notes
WHEN old.content IS NOT new.content OR old.context IS NOT new.context
	OR old.keywords IS NOT new.keywords OR old.tags IS NOT new.tags
BEGIN
	DELETE FROM notes_fts WHERE rowid = old.seq;
	INSERT INTO notes_fts (rowid, content, context, keywords, tags) VALUES (
		new.seq, new.content, new.context,
		(SELECT group_concat(value, ' ') FROM json_each(new.keywords)),
		(SELECT group_concat(value, ' ') FROM json_each(new.tags)));
END;
`

const (
	createMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	applied_at INTEGER NOT NULL
) STRICT`
	selectSchemaVersion = `SELECT coalesce(max(version), 0) FROM schema_migrations`
	insertMigration     = `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`
)

// migrate applies the missing migrations in one write transaction, so a
// failure leaves the schema as it was and two processes opening the same
// new database don't both apply them.
func migrate(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: see dsn
	if err != nil {
		return fmt.Errorf("migrate: begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	m := sqlstore.Migrations{Steps: migrations, Create: createMigrations, Version: selectSchemaVersion,
		Insert: insertMigration, TooNew: ErrSchemaTooNew}
	err = m.Apply(func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}, func(q string) (int, error) {
		var n int
		err := tx.QueryRowContext(ctx, q).Scan(&n)
		return n, err
	})
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

// migrationSupersession keeps which notes stopped being true (issue 30):
// valid_until (unix nanoseconds, NULL while the note holds),
// superseded_by (the note that replaced it, ” for none),
// caller_validity (1 once the caller set or cleared them, which the
// curator then leaves alone), and each link's kind (” and 'related'
// are the A-Mem link, 'supersedes' goes from the new note to the old).
// The partial index serves filters on validity, which pass few notes
// out of many only when many are superseded.
const migrationSupersession = `
ALTER TABLE notes ADD COLUMN valid_until INTEGER;
ALTER TABLE notes ADD COLUMN superseded_by TEXT NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN caller_validity INTEGER NOT NULL DEFAULT 0;
ALTER TABLE links ADD COLUMN kind TEXT NOT NULL DEFAULT '';
CREATE INDEX notes_valid_until ON notes (ns, valid_until) WHERE valid_until IS NOT NULL;
`
