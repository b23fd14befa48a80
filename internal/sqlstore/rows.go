package sqlstore

import (
	"context"
	"fmt"

	"github.com/amem-dev/amem"
)

// Rows is what the streaming readers need of a driver's result rows:
// *sql.Rows has it, and so does pgx.Rows. Closing stays with the caller,
// as the two Close methods differ. Err is the place to turn driver
// errors into amem errors.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// checkEvery is how many rows a long scan reads between looks at its
// context: often enough to stop within milliseconds, seldom enough to
// cost nothing.
const checkEvery = 1024

// Embeddings streams rows of (id, embedding) to fn, as Tx.EmbeddingsOf
// does: rows without a vector are skipped, and the vector passed is one
// buffer reused for every row. B is the driver's type for bytes that
// stay in its buffer (sql.RawBytes, pgtype.DriverBytes): decoded at
// once, never copied. Errors from fn and ctx are returned as they are,
// the rest after "embeddings: ".
func Embeddings[B ~[]byte](ctx context.Context, rows Rows, fn func(id string, vec []float32) error) error {
	var (
		id  string
		raw B
		vec []float32
	)
	// Made once: a variadic call through an interface would allocate
	// its slice at every row.
	dest := []any{&id, &raw}
	for i := 0; rows.Next(); i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("embeddings: %w", err)
		}
		var err error
		if vec, err = DecodeVector(vec, []byte(raw)); err != nil {
			return fmt.Errorf("embeddings: note %s: %w", id, err)
		}
		if len(vec) == 0 {
			continue
		}
		if err := fn(id, vec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	return nil
}

// Changes streams the changed notes that rows yields, in number order,
// to fn as Tx.Changes does, merged with the tombstones dead (also in
// number order). scan reads a row's change number and note, decoding its
// embedding into vec's array when it is large enough: a full load reads
// every vector once, into one buffer. Errors from fn and ctx are returned
// as they are, the rest after "changes of ns: ".
func Changes(ctx context.Context, ns string, rows Rows, dead []amem.Change,
	scan func(vec []float32) (int64, amem.Note, error), fn func(amem.Change) error) error {
	var vec []float32
	for i := 0; rows.Next(); i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		seq, n, err := scan(vec)
		if err != nil {
			return fmt.Errorf("changes of %s: %w", ns, err)
		}
		if n.Embedding != nil {
			vec = n.Embedding
		}
		for len(dead) > 0 && dead[0].Seq <= seq {
			if err := fn(dead[0]); err != nil {
				return err
			}
			dead = dead[1:]
		}
		if err := fn(amem.Change{Seq: seq, ID: n.ID, Note: n}); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("changes of %s: %w", ns, err)
	}
	for _, d := range dead {
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}
