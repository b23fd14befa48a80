package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"

	amem "github.com/amem-dev/amem"
)

// provider names this package in every amem.ProviderError.
const provider = "openai"

// maxDetail bounds how much of an error body goes into an error message.
const maxDetail = 512

// wrapError turns whatever the SDK returned into an *amem.ProviderError.
// ctx is the caller's context: when it has ended, the error is its error
// (not retryable: the caller gave up), whatever the transport said.
func wrapError(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return &amem.ProviderError{Provider: provider, Err: fmt.Errorf("%s: %w", op, ctxErr)}
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		pe := &amem.ProviderError{
			Provider:  provider,
			Status:    apiErr.StatusCode,
			Retryable: retryableStatus(apiErr.StatusCode),
		}
		if res := apiErr.Response; res != nil {
			pe.RequestID = res.Header.Get("x-request-id")
			pe.RetryAfter = retryAfter(res.Header, time.Now())
			// The SDK's own verdict, when the server gave one.
			switch res.Header.Get("x-should-retry") {
			case "true":
				pe.Retryable = true
			case "false":
				pe.Retryable = false
			}
		}
		// The SDK's Error() is only "OpenAI API error: 400 Bad Request";
		// the server's message is what tells a person what went wrong.
		if d := detail(apiErr); d != "" {
			pe.Err = fmt.Errorf("%s: %w: %s", op, apiErr, d)
		} else {
			pe.Err = fmt.Errorf("%s: %w", op, apiErr)
		}
		return pe
	}
	// No HTTP response: the attempt timed out (the SDK's per-attempt
	// timeout, as the caller's context is still live) or the network
	// failed. Both are worth retrying later.
	retryable := errors.Is(err, context.DeadlineExceeded)
	var urlErr *url.Error
	var netErr net.Error
	if errors.As(err, &urlErr) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) {
		retryable = true
	}
	return &amem.ProviderError{Provider: provider, Retryable: retryable, Err: fmt.Errorf("%s: %w", op, err)}
}

// retryableStatus matches the statuses the SDK itself retries.
func retryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= http.StatusInternalServerError
}

// retryAfter reads the server's hint: retry-after-ms (OpenAI's, more
// precise) first, then Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// detail is the server's own words about an error: the OpenAI-style
// error.message, else the raw body (vLLM and some gateways put the message
// at the top level), cut to maxDetail.
func detail(e *sdk.Error) string {
	var parts []string
	if e.Message != "" {
		parts = append(parts, e.Message)
	}
	if e.Param != "" {
		parts = append(parts, "param "+e.Param)
	}
	if len(parts) == 0 {
		parts = append(parts, strings.TrimSpace(rawBody(e)))
	}
	s := strings.Join(parts, "; ")
	if len(s) > maxDetail {
		s = s[:maxDetail] + "..."
	}
	return s
}

// rawBody returns the error response's body. The SDK leaves it readable
// in memory; it is put back so that it can be read again.
func rawBody(e *sdk.Error) string {
	if e.Response == nil || e.Response.Body == nil {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(e.Response.Body, 64<<10))
	e.Response.Body = io.NopCloser(strings.NewReader(string(b)))
	if err != nil {
		return ""
	}
	return string(b)
}
