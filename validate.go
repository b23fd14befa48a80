package amem

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on caller input besides Options.MaxContentBytes. They keep one
// note's attributes small enough to show a curator many of them.
const (
	MaxNamespaceLen  = 128
	MaxKeywords      = 32
	MaxTags          = 16
	MaxTermBytes     = 128 // one keyword or tag
	MaxContextBytes  = 2048
	MaxMetadataPairs = 64
	MaxMetadataKey   = 128
	MaxMetadataValue = 2048
)

// The event times a note can take: the whole years inside what a store
// must hold (SQLite keeps int64 nanoseconds, 1677-09-21 to 2262-04-11).
var (
	minEventTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	maxEventTime = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
)

// ValidEventTime checks an event time a caller gave: it must lie from
// 1678-01-01T00:00:00Z to 2261-12-31T23:59:59.999999999Z. The zero time is
// refused too: it is what "0001-01-01T00:00:00Z" decodes to, never when
// anything happened, and taking it for "now" or "none" would change the
// note behind the caller's back. Callers that accept an absent time
// (meaning now, or unchanged) check only the times they are given.
func ValidEventTime(t time.Time) error {
	if !t.Before(minEventTime) && !t.After(maxEventTime) {
		return nil
	}
	span := minEventTime.Format(time.RFC3339) + " to " + maxEventTime.Truncate(time.Second).Format(time.RFC3339)
	if t.IsZero() {
		return invalidf("time %s is the zero time, not a moment: give a time from %s, or leave time out", t.Format(time.RFC3339), span)
	}
	return invalidf("time %s is outside the times a note can hold, %s", t.Format(time.RFC3339Nano), span)
}

// ValidNamespace checks a namespace name: 1-128 characters of letters,
// digits and . _ - : @ (no slash, so it fits in a URL path segment).
func ValidNamespace(ns string) error {
	if ns == "" {
		return invalidf("namespace is empty")
	}
	if len(ns) > MaxNamespaceLen {
		return invalidf("namespace is %d bytes, the limit is %d", len(ns), MaxNamespaceLen)
	}
	if ns == "." || ns == ".." {
		// Path segments: no URL (/v1/namespaces/../notes, the web UI)
		// could name it.
		return invalidf("namespace %q is a path segment; give a name with a letter or digit", ns)
	}
	for _, r := range ns {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-:@", r)) {
			return invalidf("namespace %q has %q; use letters, digits and . _ - : @", ns, r)
		}
	}
	return nil
}

// nulChar is refused in every text a note keeps: PostgreSQL's text can't
// hold it, and a note must read the same on every store.
const nulChar = "\x00"

// ValidTerms checks caller-given keywords or tags and returns them trimmed
// and de-duplicated (case-insensitively, first spelling kept).
func ValidTerms(field string, terms []string, limit int) ([]string, error) {
	if len(terms) > limit {
		return nil, invalidf("%d %s, the limit is %d", len(terms), field, limit)
	}
	out := make([]string, 0, len(terms))
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		if !utf8.ValidString(t) {
			return nil, invalidf("%s: %q is not valid UTF-8", field, t)
		}
		if strings.Contains(t, nulChar) {
			return nil, invalidf("%s: %q holds a NUL character (U+0000)", field, t)
		}
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, invalidf("%s: empty entry", field)
		}
		if len(t) > MaxTermBytes {
			return nil, invalidf("%s: %q is over %d bytes", field, t[:32]+"...", MaxTermBytes)
		}
		k := strings.ToLower(t)
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// ValidMetadata checks a note's caller-given metadata: at most
// MaxMetadataPairs pairs, keys non-empty, text valid UTF-8 without NUL,
// keys and values within their limits.
func ValidMetadata(md map[string]string) error {
	if len(md) > MaxMetadataPairs {
		return invalidf("%d metadata pairs, the limit is %d", len(md), MaxMetadataPairs)
	}
	for k, v := range md {
		switch {
		case k == "":
			return invalidf("metadata has an empty key")
		case !utf8.ValidString(k) || !utf8.ValidString(v):
			return invalidf("metadata %q is not valid UTF-8", k)
		case strings.Contains(k, nulChar) || strings.Contains(v, nulChar):
			return invalidf("metadata %q holds a NUL character (U+0000)", k)
		case len(k) > MaxMetadataKey:
			return invalidf("metadata key %q is over %d bytes", k[:32]+"...", MaxMetadataKey)
		case len(v) > MaxMetadataValue:
			return invalidf("metadata value of %q is over %d bytes", k, MaxMetadataValue)
		}
	}
	return nil
}

// ValidContext checks a caller-given context: valid UTF-8 without NUL,
// at most MaxContextBytes.
func ValidContext(s string) error {
	if !utf8.ValidString(s) {
		return invalidf("context is not valid UTF-8")
	}
	if strings.Contains(s, nulChar) {
		return invalidf("context holds a NUL character (U+0000)")
	}
	if len(s) > MaxContextBytes {
		return invalidf("context is %d bytes, the limit is %d", len(s), MaxContextBytes)
	}
	return nil
}
