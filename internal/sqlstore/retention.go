package sqlstore

import (
	"time"

	"github.com/amem-dev/amem"
)

// Retentions reads rows of (ns, max_age nanoseconds, max_notes), the
// retention table's, into a map by namespace, never nil.
func Retentions(rows Rows) (map[string]amem.Retention, error) {
	out := map[string]amem.Retention{}
	err := Each(rows, func(s Scanner) error {
		var (
			ns  string
			age int64
			r   amem.Retention
		)
		if err := s.Scan(&ns, &age, &r.MaxNotes); err != nil {
			return err
		}
		r.MaxAge = time.Duration(age)
		out[ns] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
