package memory

import (
	"strings"
	"unicode/utf8"

	"github.com/amem-dev/amem"
)

// nul is refused in every text a note keeps: PostgreSQL's text can't hold
// it, and a note must read the same on every store.
const nul = "\x00"

func validID(id string) error {
	if !amem.ValidID(id) {
		return invalidf("%q is not a note ID (26 characters, Crockford base32)", id)
	}
	return nil
}

func (m *Memory) validContent(content string) error {
	if !utf8.ValidString(content) {
		return invalidf("content is not valid UTF-8")
	}
	if strings.Contains(content, nul) {
		return invalidf("content holds a NUL character (U+0000)")
	}
	if strings.TrimSpace(content) == "" {
		return invalidf("content is empty")
	}
	if len(content) > m.opts.MaxContentBytes {
		return invalidf("content is %d bytes, the limit is %d", len(content), m.opts.MaxContentBytes)
	}
	return nil
}
