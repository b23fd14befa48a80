package sqlstore

import "github.com/amem-dev/amem"

// ValidAfter is the bound of f.ValidAt as a valid_until value: a note
// passes if its valid_until is NULL or greater. ok is false when f does
// not filter by validity. A ValidAt beyond the storable times is clamped,
// so that it passes what it would pass unclamped.
func ValidAfter(f amem.Filter) (at int64, ok bool) {
	switch t := f.ValidAt; {
	case t.IsZero():
		return 0, false
	case t.Before(MinTime):
		return MinTime.UnixNano(), true
	case t.After(MaxTime):
		return MaxTime.UnixNano(), true
	default:
		return t.UnixNano(), true
	}
}

// LinkKind is a link's kind column as amem reads it: "" stays "" (a
// related link, as every link stored before kinds).
func LinkKind(s string) amem.LinkKind { return amem.LinkKind(s) }
