package server

import (
	"net/url"
	"strconv"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/jsonin"
)

// validityInput is PATCH's validity: {} restores the note to current.
type validityInput struct {
	ValidUntil   *jsonin.Time `json:"valid_until,omitempty"`
	SupersededBy string       `json:"superseded_by,omitempty"`
}

// validity is v as the library takes it; nil leaves validity alone.
func (v *validityInput) validity() *amem.Validity {
	if v == nil {
		return nil
	}
	out := &amem.Validity{SupersededBy: v.SupersededBy}
	if v.ValidUntil != nil {
		out.Until = v.ValidUntil.Time
	}
	return out
}

// validityQuery reads a search's as_of and exclude_superseded into req;
// the message says what is wrong.
func validityQuery(q url.Values, req *amem.SearchRequest) string {
	if v := q.Get("as_of"); v != "" {
		t, err := amem.ParseTime(v)
		if err != nil {
			return "as_of: " + err.Error()
		}
		req.AsOf = t
	}
	if v := q.Get("exclude_superseded"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return "exclude_superseded=" + strconv.Quote(v) + " must be true or false"
		}
		req.ExcludeSuperseded = on
	}
	return ""
}
