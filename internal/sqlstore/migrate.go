package sqlstore

import (
	"fmt"
	"time"
)

// Migrations are a store's schema changes and the statements that keep
// their record, each in the store's own SQL; Apply runs them inside the
// caller's transaction, which makes them all or nothing.
type Migrations struct {
	// Steps[v-1] takes the schema from version v-1 to v.
	Steps []string
	// Create makes the record table if it is missing; Version reads the
	// highest version recorded (0 for none); Insert records a version
	// and the time it was applied (nanoseconds).
	Create, Version, Insert string
	// TooNew is the store's error for a schema newer than Steps.
	TooNew error
}

// Apply brings the schema up to date through exec and queryInt (one
// integer from a query), in the caller's transaction.
func (m Migrations) Apply(exec func(query string, args ...any) error, queryInt func(query string) (int, error)) error {
	if err := exec(m.Create); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	have, err := queryInt(m.Version)
	if err != nil {
		return fmt.Errorf("migrate: schema version: %w", err)
	}
	if have > len(m.Steps) {
		return fmt.Errorf("%w: the database is at version %d, this program knows up to %d",
			m.TooNew, have, len(m.Steps))
	}
	for v := have + 1; v <= len(m.Steps); v++ {
		if err := exec(m.Steps[v-1]); err != nil {
			return fmt.Errorf("migrate: version %d: %w", v, err)
		}
		if err := exec(m.Insert, v, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("migrate: version %d: %w", v, err)
		}
	}
	return nil
}
