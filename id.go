package amem

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"sync"
	"time"
)

// IDs are ULIDs: 48 bits of milliseconds then 80 random bits, in Crockford
// base32, so they sort by creation time as strings. The root package keeps
// third-party imports out, and a ULID is forty lines, so it is written here.
// Within one millisecond the random part is incremented, so IDs made by one
// process are strictly increasing.

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// IDSource makes note IDs; its zero value is ready, and safe for
// concurrent use.
type IDSource struct {
	mu     sync.Mutex
	lastMS uint64
	hi     uint16 // top 16 of the 80 random bits
	lo     uint64 // low 64 of the 80 random bits
}

// Next returns a new ID for a note made at now.
func (s *IDSource) Next(now time.Time) string {
	ms := uint64(now.UnixMilli())
	s.mu.Lock()
	if ms <= s.lastMS {
		ms = s.lastMS
		s.lo++
		if s.lo == 0 {
			s.hi++
		}
	} else {
		var b [10]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		s.hi = binary.BigEndian.Uint16(b[:2])
		s.lo = binary.BigEndian.Uint64(b[2:])
		s.lastMS = ms
	}
	hi, lo := s.hi, s.lo
	s.mu.Unlock()

	var raw [16]byte
	binary.BigEndian.PutUint16(raw[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(raw[2:6], uint32(ms))
	binary.BigEndian.PutUint16(raw[6:8], hi)
	binary.BigEndian.PutUint64(raw[8:16], lo)
	return encodeULID(raw)
}

func encodeULID(b [16]byte) string {
	var out [26]byte
	// 128 bits as 26 base32 digits: the first digit carries 3 bits.
	var acc uint64
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	for i := 25; i >= 0; i-- {
		acc = lo & 31
		lo = lo>>5 | hi<<59
		hi >>= 5
		out[i] = crockford[acc]
	}
	return string(out[:])
}

// ValidID reports whether s has the shape of a note ID.
func ValidID(s string) bool {
	if len(s) != 26 || s[0] > '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(crockford, rune(s[i])) {
			return false
		}
	}
	return true
}
