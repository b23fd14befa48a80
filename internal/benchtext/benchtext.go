// Package benchtext makes the synthetic note texts benchmarks share, so
// that figures from different packages measure the same corpus.
package benchtext

import (
	"math/rand/v2"
	"strings"
)

// Words is the benchmarks' vocabulary: 50-odd words, so every query word
// hits a sizable share of the notes.
var Words = strings.Fields(`garden piano hiking adoption painting support group
concert coffee recipe mountain river camping guitar novel school career counsellor
family dog cat beach sunrise museum pottery workshop marathon yoga travel paris
festival volunteer charity birthday wedding interview project deadline conference`)

// Sentence returns 8 to 15 words of Words drawn with r.
func Sentence(r *rand.Rand) string {
	n := 8 + r.IntN(8)
	w := make([]string, n)
	for i := range w {
		w[i] = Words[r.IntN(len(Words))]
	}
	return strings.Join(w, " ")
}
