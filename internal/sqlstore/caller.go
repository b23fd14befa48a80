package sqlstore

import "github.com/amem-dev/amem"

// Which attributes the caller wrote (amem.Note.CallerKeywords and
// CallerContext) is one integer column, caller_attrs, a bit per
// attribute, the same on both stores: a note read back needs both, and
// one column keeps the notes' column lists (and every scan) one entry
// longer rather than two.
const (
	callerKeywords = 1 << iota
	callerContext
)

// CallerAttrs returns the caller_attrs column's value for n.
func CallerAttrs(n amem.Note) int64 {
	var bits int64
	if n.CallerKeywords {
		bits |= callerKeywords
	}
	if n.CallerContext {
		bits |= callerContext
	}
	return bits
}

// SetCallerAttrs sets n's marks from the caller_attrs column read back.
func SetCallerAttrs(n *amem.Note, bits int64) {
	n.CallerKeywords = bits&callerKeywords != 0
	n.CallerContext = bits&callerContext != 0
}
