package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
)

const (
	testKey   = "sk-ant-test"
	testModel = "claude-test-1"
)

// fakeAPI is an httptest server that speaks the Messages API. reply
// answers the n-th request (from 1); every request is checked first.
type fakeAPI struct {
	t     *testing.T
	calls atomic.Int32
	reply func(w http.ResponseWriter, r *http.Request, n int)

	mu   sync.Mutex
	reqs []map[string]any // decoded bodies, in order
}

func newFakeAPI(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, n int)) (*fakeAPI, *httptest.Server) {
	t.Helper()
	f := &fakeAPI{t: t, reply: reply}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	n := int(f.calls.Add(1))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read body: %v", err)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		f.t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.URL.Path)
	}
	// SDK v2 sends the API key as a bearer token, not as x-api-key.
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		f.t.Errorf("Authorization = %q, want the bearer API key", got)
	}
	if r.Header.Get("anthropic-version") == "" {
		f.t.Error("no anthropic-version header")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		f.t.Errorf("Content-Type = %q", ct)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		f.t.Errorf("body is not JSON: %v: %s", err, body)
	}
	if m["model"] != testModel {
		f.t.Errorf("model = %v, want %s", m["model"], testModel)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, m)
	f.mu.Unlock()
	f.reply(w, r, n)
}

func (f *fakeAPI) lastRequest() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reqs) == 0 {
		f.t.Fatal("no request received")
	}
	return f.reqs[len(f.reqs)-1]
}

// writeMessage writes a 200 Messages response exactly as the API does.
func writeMessage(w http.ResponseWriter, reqID, stopReason, content string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", reqID)
	fmt.Fprintf(w, `{
  "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
  "type": "message",
  "role": "assistant",
  "model": %q,
  "content": %s,
  "stop_reason": %q,
  "stop_sequence": null,
  "usage": {"input_tokens": 25, "output_tokens": 9, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}`, testModel, content, stopReason)
}

// writeError writes an error response exactly as the API does.
func writeError(w http.ResponseWriter, status int, reqID, typ string, header http.Header) {
	for k, v := range header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", reqID)
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"test %s"},"request_id":%q}`, typ, typ, reqID)
}

func newClient(t *testing.T, srv *httptest.Server, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL = srv.URL
	cfg.APIKey = testKey
	cfg.Model = testModel
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

var noteSchema = &amem.JSONSchema{
	Name:        "note_metadata",
	Description: "Keywords and tags of a note.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"}},"context":{"type":"string"}},"required":["keywords","context"],"additionalProperties":false}`),
}

func userRequest() amem.LLMRequest {
	return amem.LLMRequest{
		System: "You annotate notes.",
		Messages: []amem.Message{
			{Role: "user", Content: "Alice moved to Lisbon."},
			{Role: "assistant", Content: "Noted."},
			{Role: "user", Content: "Annotate it."},
		},
	}
}

// checkBody checks the parts of a request body that every call shares.
func checkBody(t *testing.T, body map[string]any, req amem.LLMRequest, maxTokens int) {
	t.Helper()
	if got := body["max_tokens"]; got != float64(maxTokens) {
		t.Errorf("max_tokens = %v, want %d", got, maxTokens)
	}
	wantSystem := []any{map[string]any{"type": "text", "text": req.System}}
	if !reflect.DeepEqual(body["system"], wantSystem) {
		t.Errorf("system = %#v, want %#v", body["system"], wantSystem)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != len(req.Messages) {
		t.Fatalf("messages = %#v, want %d", body["messages"], len(req.Messages))
	}
	for i, m := range req.Messages {
		want := map[string]any{
			"role":    m.Role,
			"content": []any{map[string]any{"type": "text", "text": m.Content}},
		}
		if !reflect.DeepEqual(msgs[i], want) {
			t.Errorf("messages[%d] = %#v, want %#v", i, msgs[i], want)
		}
	}
	if _, ok := body["temperature"]; ok {
		t.Error("temperature sent; API version 2026-10-21 has none")
	}
}

func TestComplete(t *testing.T) {
	toolInput := `{"keywords":["Alice","Lisbon"],"context":"relocation"}`
	tests := []struct {
		name       string
		schema     *amem.JSONSchema
		structured StructuredOutput
		maxTokens  int // in the request; 0: Config's default
		stopReason string
		content    string
		wantText   string
		wantFinish string
	}{
		{
			name:       "json output",
			schema:     noteSchema,
			stopReason: "end_turn",
			content:    `[{"type":"text","text":` + strconv.Quote(toolInput) + `}]`,
			wantText:   toolInput,
			wantFinish: amem.FinishStop,
		},
		{
			name:       "tool use",
			schema:     noteSchema,
			structured: StructuredTool,
			stopReason: "tool_use",
			content:    `[{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"note_metadata","input":` + toolInput + `}]`,
			wantText:   toolInput,
			wantFinish: amem.FinishStop,
		},
		{
			name:       "plain text",
			maxTokens:  300,
			stopReason: "end_turn",
			content:    `[{"type":"text","text":"Alice "},{"type":"text","text":"lives in Lisbon."}]`,
			wantText:   "Alice lives in Lisbon.",
			wantFinish: amem.FinishStop,
		},
		{
			name:       "stop sequence",
			stopReason: "stop_sequence",
			content:    `[{"type":"text","text":"done"}]`,
			wantText:   "done",
			wantFinish: amem.FinishStop,
		},
		{
			name:       "max tokens",
			stopReason: "max_tokens",
			content:    `[{"type":"text","text":"Alice moved to"}]`,
			wantText:   "Alice moved to",
			wantFinish: amem.FinishLength,
		},
		{
			name:       "refusal with schema",
			schema:     noteSchema,
			stopReason: "refusal",
			content:    `[{"type":"text","text":"I can't help with that."}]`,
			wantText:   "I can't help with that.",
			wantFinish: amem.FinishRefusal,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
				writeMessage(w, "req_ok1", tt.stopReason, tt.content)
			})
			c := newClient(t, srv, Config{StructuredOutput: tt.structured})
			req := userRequest()
			req.Schema = tt.schema
			req.MaxTokens = tt.maxTokens
			temp := 0.2
			req.Temperature = &temp

			got, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			want := amem.LLMResponse{
				Text:         tt.wantText,
				FinishReason: tt.wantFinish,
				Usage:        amem.Usage{PromptTokens: 25, CompletionTokens: 9},
				Model:        testModel,
				RequestID:    "req_ok1",
			}
			if got != want {
				t.Errorf("Complete =\n%+v, want\n%+v", got, want)
			}

			body := f.lastRequest()
			wantMax := tt.maxTokens
			if wantMax == 0 {
				wantMax = DefaultMaxTokens
			}
			checkBody(t, body, req, wantMax)
			if tt.schema == nil {
				if _, ok := body["tools"]; ok {
					t.Errorf("tools sent without a schema: %v", body["tools"])
				}
				if _, ok := body["tool_choice"]; ok {
					t.Errorf("tool_choice sent without a schema: %v", body["tool_choice"])
				}
				return
			}
			var schema any
			if err := json.Unmarshal(tt.schema.Schema, &schema); err != nil {
				t.Fatal(err)
			}
			if tt.structured != StructuredTool {
				checkJSONOutput(t, body, schema)
				return
			}
			wantTools := []any{map[string]any{
				"name":         tt.schema.Name,
				"description":  tt.schema.Description,
				"input_schema": schema,
			}}
			if !reflect.DeepEqual(body["tools"], wantTools) {
				t.Errorf("tools = %#v, want %#v", body["tools"], wantTools)
			}
			wantChoice := map[string]any{"type": "tool", "name": tt.schema.Name}
			if !reflect.DeepEqual(body["tool_choice"], wantChoice) {
				t.Errorf("tool_choice = %#v, want %#v", body["tool_choice"], wantChoice)
			}
		})
	}
}

// checkJSONOutput checks that body asks for JSON outputs with schema and
// defines no tool.
func checkJSONOutput(t *testing.T, body map[string]any, schema any) {
	t.Helper()
	want := map[string]any{"format": map[string]any{"type": "json_schema", "schema": schema}}
	if !reflect.DeepEqual(body["output_config"], want) {
		t.Errorf("output_config = %#v, want %#v", body["output_config"], want)
	}
	if _, ok := body["tools"]; ok {
		t.Errorf("tools sent with JSON outputs: %v", body["tools"])
	}
}

// A model without JSON outputs answers 400 naming the format; the client
// then asks again with a forced tool, and keeps to tool use afterwards. A
// 400 for another reason is not retried.
func TestCompleteFallsBackToTool(t *testing.T) {
	toolInput := `{"keywords":["Alice"],"context":"c"}`
	f, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("request-id", "req_400")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"output_config.format: structured outputs are not supported by this model"},"request_id":"req_400"}`)
			return
		}
		writeMessage(w, fmt.Sprintf("req_%d", n), "tool_use", `[{"type":"tool_use","id":"toolu_01","name":"note_metadata","input":`+toolInput+`}]`)
	})
	c := newClient(t, srv, Config{})
	req := userRequest()
	req.Schema = noteSchema
	for i := range 2 {
		got, err := c.Complete(context.Background(), req)
		if err != nil || got.Text != toolInput {
			t.Fatalf("call %d: %+v, %v", i, got, err)
		}
	}
	f.mu.Lock()
	reqs := slices.Clone(f.reqs)
	f.mu.Unlock()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (JSON outputs, then a tool twice)", len(reqs))
	}
	var schema any
	if err := json.Unmarshal(noteSchema.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	checkJSONOutput(t, reqs[0], schema)
	for _, r := range reqs[1:] {
		if _, ok := r["output_config"]; ok || r["tool_choice"] == nil {
			t.Errorf("after the fallback: output_config %v, tool_choice %v", r["output_config"], r["tool_choice"])
		}
	}

	t.Run("other 400s are errors", func(t *testing.T) {
		f, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
			writeError(w, http.StatusBadRequest, "req_bad", "invalid_request_error", nil)
		})
		_, err := newClient(t, srv, Config{}).Complete(context.Background(), req)
		var pe *amem.ProviderError
		if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest || f.calls.Load() != 1 {
			t.Fatalf("err %v after %d calls, want the 400 after one", err, f.calls.Load())
		}
	})
	t.Run("StructuredJSON does not fall back", func(t *testing.T) {
		f, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"output_config.format: not supported"}}`)
		})
		_, err := newClient(t, srv, Config{StructuredOutput: StructuredJSON}).Complete(context.Background(), req)
		if err == nil || f.calls.Load() != 1 {
			t.Fatalf("err %v after %d calls", err, f.calls.Load())
		}
	})
}

func TestCompleteRetries(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		typ     string
		header  http.Header
		minWait time.Duration // the retry must not come sooner
	}{
		// Retry-After in whole seconds is the standard form; 1s keeps the test short.
		{"429 retry-after", http.StatusTooManyRequests, "rate_limit_error", http.Header{"Retry-After": {"1"}}, time.Second},
		{"529 overloaded", 529, "overloaded_error", http.Header{"Retry-After-Ms": {"20"}}, 20 * time.Millisecond},
		// No hint: the SDK's own backoff, 0.5s less up to 25% jitter.
		{"500 backoff", http.StatusInternalServerError, "api_error", nil, 375 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var first time.Time
			var wait time.Duration
			f, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					first = time.Now()
					writeError(w, tt.status, "req_fail", tt.typ, tt.header)
					return
				}
				wait = time.Since(first)
				writeMessage(w, "req_ok2", "end_turn", `[{"type":"text","text":"ok"}]`)
			})
			c := newClient(t, srv, Config{})
			got, err := c.Complete(context.Background(), userRequest())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got.Text != "ok" || got.RequestID != "req_ok2" {
				t.Errorf("Complete = %+v, want the second reply", got)
			}
			if n := f.calls.Load(); n != 2 {
				t.Errorf("server saw %d calls, want 2", n)
			}
			if wait < tt.minWait {
				t.Errorf("retried after %v, want at least %v", wait, tt.minWait)
			}
		})
	}
}

func TestCompleteErrors(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		reply      func(w http.ResponseWriter, r *http.Request, n int)
		wantCalls  int32
		want       amem.ProviderError // Err is not compared
		wantTarget error              // errors.Is target, if any
	}{
		{
			name: "400 final",
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				writeError(w, http.StatusBadRequest, "req_bad", "invalid_request_error", nil)
			},
			wantCalls: 1,
			want:      amem.ProviderError{Status: 400, RequestID: "req_bad"},
		},
		{
			name: "500 x-should-retry false",
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				writeError(w, http.StatusInternalServerError, "req_nr", "api_error", http.Header{"X-Should-Retry": {"false"}})
			},
			wantCalls: 1,
			want:      amem.ProviderError{Status: 500, RequestID: "req_nr"},
		},
		{
			name: "529 exhausted",
			cfg:  Config{MaxRetries: 2},
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				writeError(w, 529, fmt.Sprintf("req_%d", n), "overloaded_error", http.Header{"Retry-After-Ms": {"5"}})
			},
			wantCalls: 3,
			want:      amem.ProviderError{Status: 529, Retryable: true, RetryAfter: 5 * time.Millisecond, RequestID: "req_3"},
		},
		{
			name: "429 no retries",
			cfg:  Config{MaxRetries: -1},
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				writeError(w, 429, "req_rl", "rate_limit_error", http.Header{"Retry-After": {"7"}})
			},
			wantCalls: 1,
			want:      amem.ProviderError{Status: 429, Retryable: true, RetryAfter: 7 * time.Second, RequestID: "req_rl"},
		},
		{
			name: "attempt timeout",
			cfg:  Config{Timeout: 50 * time.Millisecond, MaxRetries: -1},
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			wantCalls:  1,
			want:       amem.ProviderError{Status: 0, Retryable: true},
			wantTarget: context.DeadlineExceeded,
		},
		{
			name: "attempt timeout retried",
			cfg:  Config{Timeout: 50 * time.Millisecond, MaxRetries: 1},
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			wantCalls:  2,
			want:       amem.ProviderError{Status: 0, Retryable: true},
			wantTarget: context.DeadlineExceeded,
		},
		{
			name: "connection dropped",
			cfg:  Config{MaxRetries: -1},
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
			},
			wantCalls: 1,
			want:      amem.ProviderError{Status: 0, Retryable: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, srv := newFakeAPI(t, tt.reply)
			c := newClient(t, srv, tt.cfg)
			_, err := c.Complete(context.Background(), userRequest())
			var pe *amem.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("Complete error = %v (%T), want *amem.ProviderError", err, err)
			}
			got := *pe
			got.Err = nil
			want := tt.want
			want.Provider = "anthropic"
			if got != want {
				t.Errorf("ProviderError = %+v, want %+v (%v)", got, want, err)
			}
			if pe.Err == nil {
				t.Error("ProviderError.Err is nil")
			}
			if tt.wantTarget != nil && !errors.Is(err, tt.wantTarget) {
				t.Errorf("error %v is not %v", err, tt.wantTarget)
			}
			if n := f.calls.Load(); n != tt.wantCalls {
				t.Errorf("server saw %d calls, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestCompleteCancel(t *testing.T) {
	release := make(chan struct{})
	f, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	c := newClient(t, srv, Config{MaxConcurrency: 1})

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Complete(ctx, userRequest())
	var pe *amem.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("Complete error = %v, want *amem.ProviderError", err)
	}
	if !errors.Is(err, context.Canceled) || pe.Retryable || pe.Status != 0 {
		t.Errorf("error = %+v, want a non-retryable cancellation", pe)
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("server saw %d calls, want 1: a cancelled call is not retried", n)
	}

	// Cancelled while waiting for a slot: the only slot is held by a call
	// stuck on the server, so the waiter must give up on its own ctx.
	stuck := make(chan error, 1)
	stuckCtx, stopStuck := context.WithCancel(context.Background())
	defer stopStuck()
	go func() {
		_, err := c.Complete(stuckCtx, userRequest())
		stuck <- err
	}()
	for f.calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	waitCtx, cancelWait := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelWait()
	_, err = c.Complete(waitCtx, userRequest())
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) || pe.Retryable {
		t.Errorf("waiting for a slot: error = %v, want a non-retryable ProviderError wrapping the deadline", err)
	}
	if n := f.calls.Load(); n != 2 {
		t.Errorf("server saw %d calls, want 2", n)
	}
	stopStuck()
	if err := <-stuck; !errors.Is(err, context.Canceled) {
		t.Errorf("stuck call: %v, want cancelled", err)
	}
}

func TestCompleteConcurrencyBound(t *testing.T) {
	const limit, calls = 2, 8
	var inFlight, peak atomic.Int32
	_, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		writeMessage(w, "req_c", "end_turn", `[{"type":"text","text":"ok"}]`)
	})
	c := newClient(t, srv, Config{MaxConcurrency: limit})

	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), userRequest()); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Complete: %v", err)
	}
	if p := peak.Load(); p != limit {
		t.Errorf("peak in-flight requests = %d, want %d", p, limit)
	}
}

func TestCompleteInvalidRequest(t *testing.T) {
	f, srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeMessage(w, "req_x", "end_turn", `[]`)
	})
	c := newClient(t, srv, Config{})
	tests := []struct {
		name string
		req  amem.LLMRequest
	}{
		{"no messages", amem.LLMRequest{System: "s"}},
		{"bad role", amem.LLMRequest{Messages: []amem.Message{{Role: "system", Content: "x"}}}},
		{"unnamed schema", amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}, Schema: &amem.JSONSchema{Schema: json.RawMessage(`{}`)}}},
		{"schema not an object", amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}, Schema: &amem.JSONSchema{Name: "n", Schema: json.RawMessage(`[1]`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Complete(context.Background(), tt.req)
			var pe *amem.ProviderError
			if !errors.As(err, &pe) || !errors.Is(err, amem.ErrInvalid) || pe.Retryable {
				t.Errorf("error = %v, want a non-retryable ProviderError wrapping ErrInvalid", err)
			}
		})
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("server saw %d calls, want 0", n)
	}
}

func TestNew(t *testing.T) {
	for _, cfg := range []Config{{Model: testModel}, {APIKey: testKey}} {
		if _, err := New(cfg); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("New(%+v) error = %v, want ErrInvalid", cfg, err)
		}
	}
	c, err := New(Config{APIKey: testKey, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if cap(c.sem) != DefaultMaxConcurrency || c.maxTokens != DefaultMaxTokens || c.timeout != DefaultTimeout {
		t.Errorf("defaults: concurrency %d, max tokens %d, timeout %v", cap(c.sem), c.maxTokens, c.timeout)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"ms wins", http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}}, 10 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.header, now); got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "1", "0.5", "-1", "1e308", "NaN", "Wed, 02 Dec 2026 12:00:10 GMT"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{"Retry-After": {ra}, "Retry-After-Ms": {ms}}
		if d := retryAfter(h, time.Now()); d < 0 {
			t.Errorf("retryAfter(%q, %q) = %v, want >= 0", ra, ms, d)
		}
	})
}
