package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/amem-dev/amem/internal/sqlstore"
)

// ErrSchemaTooNew is returned by Open when the database was migrated by a
// newer version of this package than the running one: its schema may hold
// what this code would misread or lose. Upgrade this instance first.
var ErrSchemaTooNew = errors.New("database schema is newer than this program")

// migrations are the schema's numbered changes: migrations[i] is version
// i+1. Open applies the missing ones in order, in one transaction, and
// records each in amem_schema_migrations. Never edit a released
// migration; append a new one.
var migrations = []string{
	migration1,
	migration2,
	migrationCuratorTags,
	migrationTrash,
	migrationSupersession,
	migrationProvenance,
	migrationRetention,
}

// migration2 adds webhooks and their outbox, as package sqlite's
// migration 6. Event IDs come from an identity column, never reused.
// The foreign key makes RecordEvent's insert take a key share lock on
// its webhook, so a webhook deleted meanwhile waits for the write's
// commit and then cascades to its event: no event outlives its webhook.
const migration2 = `
CREATE TABLE webhooks (
	id                text COLLATE "C" PRIMARY KEY,
	ns                text COLLATE "C" NOT NULL,
	url               text NOT NULL,
	secret            text NOT NULL,
	kinds             text NOT NULL,
	created_at        bigint NOT NULL,
	delivered         bigint NOT NULL DEFAULT 0,
	last_delivered_at bigint,
	last_error        text NOT NULL DEFAULT '',
	last_error_at     bigint
);
CREATE INDEX webhooks_ns ON webhooks (ns);
CREATE TABLE webhook_events (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	webhook_id  text COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	ns          text COLLATE "C" NOT NULL,
	note_id     text COLLATE "C" NOT NULL,
	version     integer NOT NULL,
	kind        text NOT NULL,
	created_at  bigint NOT NULL,
	attempts    integer NOT NULL DEFAULT 0,
	next_at     bigint,
	lease_owner text,
	lease_until bigint
);
CREATE INDEX webhook_events_due ON webhook_events (next_at) WHERE next_at IS NOT NULL;
CREATE INDEX webhook_events_note ON webhook_events (webhook_id, note_id, id);
`

// migrationCuratorTags is package sqlite's of the same name: the keys of
// the tags the curator added; notes stored before it count every tag as
// the caller's.
const migrationCuratorTags = `
ALTER TABLE notes ADD COLUMN curator_tag_keys text[] NOT NULL DEFAULT '{}';
`

// migrationProvenance is package sqlite's of the same name: which of a
// note's keywords and context the caller wrote, and for notes stored
// before it, a mark where the caller made the last change to a field
// that is not empty.
const migrationProvenance = `
ALTER TABLE notes ADD COLUMN caller_attrs integer NOT NULL DEFAULT 0;
UPDATE notes n SET caller_attrs =
	(CASE WHEN cardinality(n.keywords) > 0 AND (SELECT v.actor FROM versions v, jsonb_array_elements(v.changes::jsonb) c
		WHERE v.ns = n.ns AND v.note_id = n.id AND c->>'field' = 'keywords'
		ORDER BY v.version DESC LIMIT 1) = 'user' THEN 1 ELSE 0 END) |
	(CASE WHEN n.context <> '' AND (SELECT v.actor FROM versions v, jsonb_array_elements(v.changes::jsonb) c
		WHERE v.ns = n.ns AND v.note_id = n.id AND c->>'field' = 'context'
		ORDER BY v.version DESC LIMIT 1) = 'user' THEN 2 ELSE 0 END);
`

// migration1 is the schema of package sqlite at its migration 5, in
// PostgreSQL's types (see encode.go for the encodings).
//
// Identifiers and names are COLLATE "C": ListNotes pages by id > after
// and Namespaces sorts by name, and both must agree with Go's byte order
// (and SQLite's) whatever the database's locale; "C" also makes their
// indexes cheaper.
//
// notes.id is the primary key (IDs are unique across namespaces, as in
// SQLite); UNIQUE (ns, id) lets links and versions reference a note
// together with its namespace, so a link across namespaces can't exist.
//
// The change feed, the due queue and claims are as in SQLite's
// migration 4: feeds holds each namespace's head, taken by an UPDATE
// that locks the row until commit; notes carry the number of their last
// change; deletions leave tombstones; due_at and the claim columns drive
// enrichment across instances.
const migration1 = `
CREATE TABLE namespaces (
	name       text COLLATE "C" PRIMARY KEY,
	embedder   text NOT NULL,
	dims       integer NOT NULL,
	created_at bigint
);

CREATE TABLE notes (
	id              text COLLATE "C" PRIMARY KEY,
	ns              text COLLATE "C" NOT NULL,
	content         text NOT NULL,
	event_time      bigint,
	ingest_time     bigint,
	updated_at      bigint,
	keywords        text[] NOT NULL DEFAULT '{}',
	tags            text[] NOT NULL DEFAULT '{}',
	tag_keys        text[] NOT NULL DEFAULT '{}',
	context         text NOT NULL DEFAULT '',
	metadata        jsonb NOT NULL DEFAULT '{}',
	embedding       bytea,
	version         integer NOT NULL,
	enrich_state    text NOT NULL,
	enrich_error    text NOT NULL DEFAULT '',
	enrich_attempts integer NOT NULL DEFAULT 0,
	enrich_at       bigint,
	due_at          bigint,
	change_seq      bigint NOT NULL,
	claim_owner     text,
	claim_until     bigint,
	UNIQUE (ns, id)
);
CREATE INDEX notes_ns_state ON notes (ns, enrich_state, id);
CREATE INDEX notes_ns_event ON notes (ns, event_time);
CREATE INDEX notes_ns_change ON notes (ns, change_seq);
CREATE INDEX notes_due ON notes (due_at, id) WHERE due_at IS NOT NULL;

CREATE TABLE links (
	ns         text COLLATE "C" NOT NULL,
	source     text COLLATE "C" NOT NULL,
	target     text COLLATE "C" NOT NULL,
	reason     text NOT NULL DEFAULT '',
	strength   double precision NOT NULL,
	created_at bigint,
	PRIMARY KEY (source, target),
	FOREIGN KEY (ns, source) REFERENCES notes (ns, id) ON DELETE CASCADE,
	FOREIGN KEY (ns, target) REFERENCES notes (ns, id) ON DELETE CASCADE
);
CREATE INDEX links_target ON links (target);
CREATE INDEX links_ns ON links (ns);

CREATE TABLE versions (
	note_id    text COLLATE "C" NOT NULL,
	ns         text COLLATE "C" NOT NULL,
	version    integer NOT NULL,
	actor      text NOT NULL,
	reason     text NOT NULL DEFAULT '',
	changes    text NOT NULL DEFAULT '[]',
	snapshot   text NOT NULL,
	created_at bigint,
	PRIMARY KEY (note_id, version),
	FOREIGN KEY (ns, note_id) REFERENCES notes (ns, id) ON DELETE CASCADE
);
CREATE INDEX versions_ns_note ON versions (ns, note_id);

CREATE TABLE usage (
	seq               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	ns                text COLLATE "C" NOT NULL,
	note_id           text COLLATE "C" NOT NULL DEFAULT '',
	operation         text COLLATE "C" NOT NULL,
	prompt_tokens     integer NOT NULL,
	completion_tokens integer NOT NULL,
	at                bigint
);
CREATE INDEX usage_ns_operation ON usage (ns, operation);
CREATE INDEX usage_ns_note ON usage (ns, note_id);

CREATE TABLE feeds (
	ns      text COLLATE "C" PRIMARY KEY,
	head    bigint NOT NULL,
	horizon bigint NOT NULL DEFAULT 0
);

CREATE TABLE tombstones (
	ns         text COLLATE "C" NOT NULL,
	seq        bigint NOT NULL,
	id         text COLLATE "C" NOT NULL,
	deleted_at bigint,
	PRIMARY KEY (ns, seq, id)
);

CREATE TABLE api_keys (
	id         text COLLATE "C" PRIMARY KEY,
	name       text NOT NULL DEFAULT '',
	hash       text NOT NULL UNIQUE,
	admin      boolean NOT NULL,
	namespaces text[] NOT NULL,
	created_at bigint,
	revoked_at bigint
);
`

// migrationLock is the key of the advisory lock that serialises
// migrations across every process opening the database ("amemmigr").
const migrationLock = 0x616d656d6d696772

const (
	lockMigrations   = `SELECT pg_advisory_xact_lock($1)`
	createMigrations = `CREATE TABLE IF NOT EXISTS amem_schema_migrations (
	version    integer PRIMARY KEY,
	applied_at bigint NOT NULL
)`
	selectSchemaVersion = `SELECT coalesce(max(version), 0) FROM amem_schema_migrations`
	insertMigration     = `INSERT INTO amem_schema_migrations (version, applied_at) VALUES ($1, $2)`
)

// migrate applies the missing migrations in one transaction, under a
// transaction-scoped advisory lock: instances starting together wait for
// the first, then find the schema current. PostgreSQL's DDL is
// transactional, so a failed migration leaves the schema as it was.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockMigrations, int64(migrationLock)); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		m := sqlstore.Migrations{Steps: migrations, Create: createMigrations, Version: selectSchemaVersion,
			Insert: insertMigration, TooNew: ErrSchemaTooNew}
		return m.Apply(func(q string, args ...any) error {
			_, err := tx.Exec(ctx, q, args...)
			return err
		}, func(q string) (int, error) {
			var n int
			err := tx.QueryRow(ctx, q).Scan(&n)
			return n, err
		})
	})
}

// migrationSupersession is package sqlite's of the same name: each
// note's validity (valid_until, superseded_by, caller_validity) and each
// link's kind.
const migrationSupersession = `
ALTER TABLE notes ADD COLUMN valid_until bigint;
ALTER TABLE notes ADD COLUMN superseded_by text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN caller_validity boolean NOT NULL DEFAULT false;
ALTER TABLE links ADD COLUMN kind text NOT NULL DEFAULT '';
CREATE INDEX notes_valid_until ON notes (ns, valid_until) WHERE valid_until IS NOT NULL;
`
