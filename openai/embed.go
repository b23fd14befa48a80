package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	amem "github.com/amem-dev/amem"
)

// Embedder is an amem.Embedder over an OpenAI-compatible /embeddings
// endpoint. It is safe for concurrent use.
//
// Empty texts are sent as " ": many servers reject an empty input, and a
// blank vector is as meaningless as an empty one.
type Embedder struct {
	cfg    Config
	client sdk.EmbeddingService
	sem    semaphore
	// dims is fixed at construction or by the first response; every
	// vector after must match it.
	dims atomic.Int64
}

var _ amem.Embedder = (*Embedder)(nil)

// NewEmbedder returns an Embedder for cfg; cfg.Model is required. dims is
// the vector length every response must have; 0 lets the first response
// fix it. dims is checked, not requested: the OpenAI "dimensions"
// parameter is not sent, as most other servers reject it.
func NewEmbedder(cfg Config, dims int) (*Embedder, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if dims < 0 {
		return nil, fmt.Errorf("%w: negative dimensions %d", ErrInvalidConfig, dims)
	}
	e := &Embedder{cfg: cfg, client: sdk.NewEmbeddingService(cfg.options()...), sem: make(semaphore, cfg.MaxConcurrency)}
	e.dims.Store(int64(dims))
	return e, nil
}

// Name is "openai-compatible:" + the model, so that a namespace never
// mixes vectors of two models.
func (e *Embedder) Name() string { return "openai-compatible:" + e.cfg.Model }

// Dimensions is the vector length: the one given to NewEmbedder, or, when
// that was 0, the first response's (0 until then).
func (e *Embedder) Dimensions() int { return int(e.dims.Load()) }

// Embed returns one vector per text, in order. Texts are sent in batches
// of at most Config.BatchSize, concurrently up to Config.MaxConcurrency;
// the first failed batch cancels the others. Every error is an
// *amem.ProviderError.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		end := min(start+e.cfg.BatchSize, len(texts))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := e.embedBatch(ctx, texts[start:end], out[start:end]); err != nil {
				once.Do(func() { firstErr = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// embedBatch embeds texts into out (of the same length) with one request.
func (e *Embedder) embedBatch(ctx context.Context, texts []string, out [][]float32) error {
	if err := e.sem.acquire(ctx); err != nil {
		return &amem.ProviderError{Provider: provider, Err: fmt.Errorf("embeddings: waiting for a slot: %w", err)}
	}
	defer e.sem.release()
	input := make([]string, len(texts))
	for i, t := range texts {
		if t == "" {
			t = " "
		}
		input[i] = t
	}
	var res *http.Response
	resp, err := e.client.New(ctx, sdk.EmbeddingNewParams{
		Model:          e.cfg.Model,
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: input},
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}, option.WithResponseInto(&res))
	if err != nil {
		return wrapError(ctx, "embeddings", err)
	}
	var requestID string
	if res != nil {
		requestID = res.Header.Get("x-request-id")
	}
	if err := e.place(resp, out); err != nil {
		return &amem.ProviderError{Provider: provider, RequestID: requestID, Err: fmt.Errorf("embeddings: %w", err)}
	}
	return nil
}

// place puts each returned vector at its index in out, checking that
// every input got exactly one vector of the right length.
func (e *Embedder) place(resp *sdk.CreateEmbeddingResponse, out [][]float32) error {
	if resp == nil {
		return errors.New("empty response")
	}
	if len(resp.Data) != len(out) {
		return fmt.Errorf("%d vectors for %d inputs", len(resp.Data), len(out))
	}
	for _, d := range resp.Data {
		i := d.Index
		if i < 0 || i >= int64(len(out)) {
			return fmt.Errorf("vector index %d out of range [0, %d)", i, len(out))
		}
		if out[i] != nil {
			return fmt.Errorf("vector index %d returned twice", i)
		}
		n := int64(len(d.Embedding))
		if n == 0 {
			return fmt.Errorf("vector %d is empty", i)
		}
		// The first response fixes the length when none was given.
		e.dims.CompareAndSwap(0, n)
		if want := e.dims.Load(); n != want {
			return fmt.Errorf("vector %d has %d dimensions, want %d", i, n, want)
		}
		v := make([]float32, n)
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		out[i] = v
	}
	return nil
}
