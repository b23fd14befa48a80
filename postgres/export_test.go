package postgres

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SchemaVersion is the version Open migrates a database to.
var SchemaVersion = len(migrations)

// MigrateTo migrates the database at url to version v and no further, as
// the package did when v was its last migration, for tests of databases
// made before a migration. It must not run beside an Open.
func MigrateTo(ctx context.Context, url string, v int) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	all := migrations
	migrations = all[:v]
	defer func() { migrations = all }()
	return migrate(ctx, pool)
}

// CuratorTagsVersion is the migration that keeps curator tags.
var CuratorTagsVersion = slices.Index(migrations, migrationCuratorTags) + 1

// ProvenanceVersion is the migration that keeps which attributes the
// caller wrote.
var ProvenanceVersion = slices.Index(migrations, migrationProvenance) + 1
