package offline

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/amem-dev/amem"
)

// hashEmbedder is a deterministic stand-in for a sentence model: a
// normalised bag of lower-cased words hashed into 64 dimensions. Texts that
// share words are close, texts that don't are nearly orthogonal, which is
// all the curator's logic needs to be tested.
type hashEmbedder struct {
	calls atomic.Int64
	fail  error // returned by Embed when set
	short bool  // return one vector too few
}

var _ amem.Embedder = (*hashEmbedder)(nil)

const hashDims = 64

func (h *hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if h.fail != nil {
		return nil, h.fail
	}
	out := make([][]float32, 0, len(texts))
	for _, t := range texts {
		out = append(out, hashVec(t))
	}
	if h.short && len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out, nil
}

func (h *hashEmbedder) Dimensions() int { return hashDims }
func (h *hashEmbedder) Name() string    { return "hash-64" }

func hashVec(text string) []float32 {
	v := make([]float32, hashDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		f := fnv.New32a()
		f.Write([]byte(w))
		x := f.Sum32()
		sign := float32(1)
		if x&(1<<31) != 0 {
			sign = -1
		}
		v[x%hashDims] += sign
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0] = 1
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

var errDown = errors.New("embedder down")
