package amem

import (
	"fmt"
	"strings"
	"time"
)

// Parsers for what people and programs type in flags, query parameters
// and tool arguments. The CLI, the HTTP API and the MCP tools all use
// them, so that they accept the same text.

// ParseTime reads a time: RFC 3339 (2023-05-08T13:56:00Z, fractions of a
// second allowed) or a plain date (2023-05-08), which is midnight UTC.
// Anything else is ErrInvalid.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, invalidf("time %q: use RFC 3339 (2023-05-08T13:56:00Z) or a date (2023-05-08)", s)
}

// ParseMetadata reads KEY=VALUE pairs (the value may be empty or hold
// '='); nil for none. A pair without '=' or a key, or a key given twice,
// is ErrInvalid: either would otherwise be dropped without a word.
func ParseMetadata(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, invalidf("metadata %q: use KEY=VALUE", p)
		}
		if _, dup := out[k]; dup {
			return nil, invalidf("metadata key %q is given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// ParseFilter builds a search filter from text, as the CLI's flags, the
// HTTP API's query parameters and the MCP tool's arguments give it: from
// and to for ParseTime (empty: no bound), tags as they are, and metadata
// as KEY=VALUE pairs for ParseMetadata. An error names the part at fault.
// Memory.Search checks the rest (an empty range, MaxFilterTerms).
func ParseFilter(from, to string, tags, pairs []string) (Filter, error) {
	f := Filter{Tags: tags}
	for _, b := range []struct {
		name, text string
		t          *time.Time
	}{{"from", from, &f.From}, {"to", to, &f.To}} {
		if b.text == "" {
			continue
		}
		t, err := ParseTime(b.text)
		if err != nil {
			return Filter{}, fmt.Errorf("%s: %w", b.name, err)
		}
		if t.IsZero() {
			// The zero time is the Filter's "no bound": taking it would
			// turn a bound that matches nothing into none at all.
			return Filter{}, fmt.Errorf("%s: %w", b.name, invalidf("time %s is the zero time, which means no bound: leave %s out for that", b.text, b.name))
		}
		*b.t = t
	}
	md, err := ParseMetadata(pairs)
	if err != nil {
		return Filter{}, fmt.Errorf("meta: %w", err)
	}
	f.Metadata = md
	return f, nil
}
