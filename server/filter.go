package server

import (
	"fmt"
	"net/url"

	"github.com/amem-dev/amem"
)

// filterOf reads the filter query parameters that listing and searching
// notes share: from, to, tag and meta (repeatable), and tag_source.
func filterOf(q url.Values) (amem.Filter, error) {
	f, err := amem.ParseFilter(q.Get("from"), q.Get("to"), q["tag"], q["meta"])
	if err != nil {
		return f, err
	}
	if f.TagSource, err = amem.ParseTagSource(q.Get("tag_source")); err != nil {
		return f, fmt.Errorf("tag_source: %w", err)
	}
	return f, nil
}
