// Package lexical is amem's fallback embedder: feature hashing of words and
// character n-grams into a fixed-size, L2-normalised vector. It needs no
// model download and is deterministic, so the library works anywhere; it
// captures shared words and spelling, not meaning. The default embedder is
// the USE-lite sentence model (package uselite).
package lexical

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// DefaultDimensions is the vector length when Options.Dimensions is zero.
const DefaultDimensions = 512

// Options configure an Embedder. The zero value means the defaults.
type Options struct {
	// Dimensions of the vectors (default 512).
	Dimensions int
	// MinGram and MaxGram bound the character n-grams hashed within each
	// word, padded with spaces (default 3 and 4).
	MinGram, MaxGram int
}

// Embedder hashes words and character n-grams. It is safe for concurrent
// use.
type Embedder struct {
	dim              int
	minGram, maxGram int
}

// New returns an Embedder; nil opts means the defaults.
func New(opts *Options) *Embedder {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Dimensions <= 0 {
		o.Dimensions = DefaultDimensions
	}
	if o.MinGram <= 0 {
		o.MinGram = 3
	}
	if o.MaxGram < o.MinGram {
		o.MaxGram = max(o.MinGram, 4)
	}
	return &Embedder{dim: o.Dimensions, minGram: o.MinGram, maxGram: o.MaxGram}
}

// Dimensions returns the vector length.
func (e *Embedder) Dimensions() int { return e.dim }

// Name identifies the embedder and its parameters, so that a namespace
// embedded with other settings is recognised as different.
func (e *Embedder) Name() string {
	return fmt.Sprintf("lexical-hash-v1/%d/%d-%d", e.dim, e.minGram, e.maxGram)
}

// Embed returns one vector per text. An empty text gives the zero vector.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.embed(t)
	}
	return out, nil
}

// Words are weighted above n-grams: a shared word is stronger evidence of
// shared meaning than a shared fragment.
const (
	wordWeight = 1.0
	gramWeight = 0.35
)

func (e *Embedder) embed(text string) []float32 {
	v := make([]float32, e.dim)
	for _, w := range Words(text) {
		e.add(v, "w:"+w, wordWeight)
		padded := " " + w + " "
		runes := []rune(padded)
		for n := e.minGram; n <= e.maxGram; n++ {
			for i := 0; i+n <= len(runes); i++ {
				e.add(v, "g:"+string(runes[i:i+n]), gramWeight)
			}
		}
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum > 0 {
		s := float32(1 / math.Sqrt(sum))
		for i := range v {
			v[i] *= s
		}
	}
	return v
}

// add hashes the feature to a bucket and a sign; the sign halves the bias
// that collisions add to unrelated texts' dot products.
func (e *Embedder) add(v []float32, feature string, w float32) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	x := h.Sum64()
	i := int(x % uint64(e.dim))
	if x>>63 == 1 {
		w = -w
	}
	v[i] += w
}

// Words splits text into lowercase words of letters and digits after NFKC
// normalisation.
func Words(text string) []string {
	text = norm.NFKC.String(text)
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
