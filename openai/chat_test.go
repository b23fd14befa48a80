package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amem "github.com/amem-dev/amem"
)

// recorded is one request as the fake server saw it.
type recorded struct {
	Method, Path, Auth string
	Body               map[string]any
}

// fakeServer is an httptest server speaking the OpenAI wire format. Each
// request is recorded, then answered by handle with its sequence number
// (0 for the first request).
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

func newFakeServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int, body map[string]any)) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			// The client hung up mid-body: the embedder cancels its other
			// batches once one fails, so this request was abandoned, not
			// malformed. It is not recorded and gets no answer.
			return
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, raw)
		}
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, recorded{r.Method, r.URL.Path, r.Header.Get("Authorization"), body})
		f.mu.Unlock()
		handle(w, r, n, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// writeJSON answers with status and body, and an x-request-id.
func writeJSON(w http.ResponseWriter, status int, requestID, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", requestID)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// completion is a chat.completion body as OpenAI sends it.
func completion(content, refusal, finish string) string {
	msg := map[string]any{"role": "assistant", "content": content, "refusal": nil, "annotations": []any{}}
	if refusal != "" {
		msg["content"] = nil
		msg["refusal"] = refusal
	}
	b, _ := json.Marshal(map[string]any{
		"id":      "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
		"object":  "chat.completion",
		"created": 1741569952,
		"model":   "gpt-4o-mini-2024-07-18",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       msg,
			"logprobs":      nil,
			"finish_reason": finish,
		}},
		"usage": map[string]any{
			"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0},
		},
		"service_tier":       "default",
		"system_fingerprint": "fp_06737a9306",
	})
	return string(b)
}

// apiError is an error body as OpenAI sends it.
func apiError(message, typ, param string) string {
	p := any(nil)
	if param != "" {
		p = param
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": p, "code": nil}})
	return string(b)
}

func newTestChat(t *testing.T, url string, mod func(*Config)) *Chat {
	t.Helper()
	cfg := Config{BaseURL: url + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini", Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	c, err := NewChat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var testSchema = &amem.JSONSchema{
	Name:   "note attributes",
	Schema: json.RawMessage(`{"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"}}},"required":["keywords"],"additionalProperties":false}`),
}

func providerError(t *testing.T, err error) *amem.ProviderError {
	t.Helper()
	var pe *amem.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not an *amem.ProviderError", err, err)
	}
	if pe.Provider != "openai" {
		t.Errorf("Provider = %q, want openai", pe.Provider)
	}
	return pe
}

func TestCompleteSuccess(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		writeJSON(w, 200, "req_123", completion(`{"keywords":["go"]}`, "", "stop"))
	})
	c := newTestChat(t, srv.URL, nil)
	temp := 0.2
	resp, err := c.Complete(context.Background(), amem.LLMRequest{
		System:      "You write note attributes.",
		Messages:    []amem.Message{{Role: "user", Content: "Go is fun."}, {Role: "assistant", Content: "ok"}, {Role: "user", Content: "again"}},
		Schema:      testSchema,
		MaxTokens:   100,
		Temperature: &temp,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := amem.LLMResponse{
		Text:         `{"keywords":["go"]}`,
		FinishReason: amem.FinishStop,
		Usage:        amem.Usage{PromptTokens: 19, CompletionTokens: 10},
		Model:        "gpt-4o-mini-2024-07-18",
		RequestID:    "req_123",
	}
	if resp != want {
		t.Errorf("response = %+v, want %+v", resp, want)
	}

	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.Path)
	}
	if r.Auth != "Bearer sk-test" {
		t.Errorf("Authorization = %q", r.Auth)
	}
	if r.Body["model"] != "gpt-4o-mini" {
		t.Errorf("model = %v", r.Body["model"])
	}
	if r.Body["max_tokens"] != 100.0 || r.Body["temperature"] != 0.2 {
		t.Errorf("max_tokens = %v, temperature = %v", r.Body["max_tokens"], r.Body["temperature"])
	}
	msgs, _ := json.Marshal(r.Body["messages"])
	wantMsgs := `[{"content":"You write note attributes.","role":"system"},{"content":"Go is fun.","role":"user"},{"content":"ok","role":"assistant"},{"content":"again","role":"user"}]`
	if string(msgs) != wantMsgs {
		t.Errorf("messages = %s\nwant %s", msgs, wantMsgs)
	}
	rf, _ := json.Marshal(r.Body["response_format"])
	wantRF := `{"json_schema":{"name":"note_attributes","schema":{"additionalProperties":false,"properties":{"keywords":{"items":{"type":"string"},"type":"array"}},"required":["keywords"],"type":"object"},"strict":true},"type":"json_schema"}`
	if string(rf) != wantRF {
		t.Errorf("response_format = %s\nwant %s", rf, wantRF)
	}
}

func TestCompleteNoKeyNoAuthorization(t *testing.T) {
	// A local server needs no key, and the SDK must not fall back to the
	// environment's.
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		writeJSON(w, 200, "req_1", completion("hi", "", "stop"))
	})
	c := newTestChat(t, srv.URL, func(c *Config) { c.APIKey = "" })
	if _, err := c.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	r := srv.requests()[0]
	if r.Auth != "" {
		t.Errorf("Authorization = %q, want none", r.Auth)
	}
	if _, ok := r.Body["response_format"]; ok {
		t.Error("response_format sent without a schema")
	}
	if msgs := r.Body["messages"].([]any); len(msgs) != 1 {
		t.Errorf("messages = %v, want the user's only (no empty system message)", msgs)
	}
}

func TestCompleteFinishReasons(t *testing.T) {
	for _, tc := range []struct {
		name, content, refusal, finish string
		wantText, wantFinish           string
	}{
		{"length", `{"keywo`, "", "length", `{"keywo`, amem.FinishLength},
		{"refusal field", "", "I can't help with that.", "stop", "I can't help with that.", amem.FinishRefusal},
		{"content filter", "", "", "content_filter", "", amem.FinishRefusal},
		{"tool calls", "", "", "tool_calls", "", amem.FinishOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				writeJSON(w, 200, "req_1", completion(tc.content, tc.refusal, tc.finish))
			})
			resp, err := newTestChat(t, srv.URL, nil).Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tc.wantText || resp.FinishReason != tc.wantFinish {
				t.Errorf("got (%q, %q), want (%q, %q)", resp.Text, resp.FinishReason, tc.wantText, tc.wantFinish)
			}
		})
	}
}

func TestCompleteRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		header   string
		value    string
		minWait  time.Duration
		errorTyp string
	}{
		// The SDK prefers retry-after-ms (OpenAI's header) to Retry-After.
		{"429 retry-after-ms", 429, "retry-after-ms", "300", 300 * time.Millisecond, "requests"},
		{"429 Retry-After seconds", 429, "Retry-After", "1", time.Second, "requests"},
		// No hint: exponential backoff from 0.5s, less up to 25% jitter.
		{"500 backoff", 500, "", "", 375 * time.Millisecond, "server_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Set in the handler, read by the test: atomics, as the race
			// detector sees no ordering through the socket.
			var first, wait atomic.Int64
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				if n == 0 {
					first.Store(time.Now().UnixNano())
					if tc.header != "" {
						w.Header().Set(tc.header, tc.value)
					}
					writeJSON(w, tc.status, "req_fail", apiError("try again", tc.errorTyp, ""))
					return
				}
				wait.Store(time.Now().UnixNano() - first.Load())
				writeJSON(w, 200, "req_ok", completion("hi", "", "stop"))
			})
			resp, err := newTestChat(t, srv.URL, nil).Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.RequestID != "req_ok" || resp.Text != "hi" {
				t.Errorf("response = %+v", resp)
			}
			if n := len(srv.requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
			if w := time.Duration(wait.Load()); w < tc.minWait {
				t.Errorf("retried after %v, want at least %v", w, tc.minWait)
			}
		})
	}
}

func TestCompleteRetriesExhausted(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		w.Header().Set("retry-after-ms", "10")
		writeJSON(w, 429, fmt.Sprintf("req_%d", n), apiError("Rate limit reached", "requests", ""))
	})
	_, err := newTestChat(t, srv.URL, func(c *Config) { c.MaxRetries = 2 }).Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
	pe := providerError(t, err)
	if pe.Status != 429 || !pe.Retryable || pe.RetryAfter != 10*time.Millisecond || pe.RequestID != "req_2" {
		t.Errorf("error = %+v", pe)
	}
	if !strings.Contains(err.Error(), "Rate limit reached") {
		t.Errorf("error %q does not carry the server's message", err)
	}
	if n := len(srv.requests()); n != 3 {
		t.Errorf("%d requests, want 3 (1 + 2 retries)", n)
	}
}

func TestCompletePlainTextError(t *testing.T) {
	// A proxy in front of a local server answers in text, not JSON.
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "upstream connect error")
	})
	_, err := newTestChat(t, srv.URL, func(c *Config) { c.MaxRetries = -1 }).Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
	pe := providerError(t, err)
	if pe.Status != 502 || !pe.Retryable || !strings.Contains(err.Error(), "upstream connect error") {
		t.Errorf("error = %v (%+v)", err, pe)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (MaxRetries -1: no retries)", n)
	}
}

func TestCompleteCustomHTTPClient(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if r.Header.Get("X-Gateway") != "amem" {
			t.Errorf("request did not go through the custom client")
		}
		writeJSON(w, 200, "req", completion("hi", "", "stop"))
	})
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("X-Gateway", "amem")
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := newTestChat(t, srv.URL, func(c *Config) { c.HTTPClient = hc })
	if _, err := c.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}}); err != nil {
		t.Fatal(err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCompleteNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	_, err := newTestChat(t, url, func(c *Config) { c.MaxRetries = -1 }).Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
	if pe := providerError(t, err); pe.Status != 0 || !pe.Retryable {
		t.Errorf("error = %v (%+v), want status 0, retryable", err, pe)
	}
}

func TestCompleteBadRequest(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		writeJSON(w, 400, "req_bad", apiError("Invalid value for 'temperature'.", "invalid_request_error", "temperature"))
	})
	temp := 9.0
	_, err := newTestChat(t, srv.URL, nil).Complete(context.Background(), amem.LLMRequest{
		Messages: []amem.Message{{Role: "user", Content: "x"}}, Schema: testSchema, Temperature: &temp,
	})
	pe := providerError(t, err)
	if pe.Status != 400 || pe.Retryable || pe.RequestID != "req_bad" {
		t.Errorf("error = %+v", pe)
	}
	// Not about the format: no fallback, no retry.
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestCompleteTimeout(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	c := newTestChat(t, srv.URL, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	start := time.Now()
	_, err := c.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
	pe := providerError(t, err)
	if pe.Status != 0 || !pe.Retryable {
		t.Errorf("error = %+v, want status 0, retryable", pe)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v is not a deadline", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	// The SDK does not retry an attempt that timed out.
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestCompleteCancel(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		<-r.Context().Done()
	})
	c := newTestChat(t, srv.URL, func(c *Config) { c.MaxConcurrency = 1 })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Complete(ctx, amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
	pe := providerError(t, err)
	if pe.Retryable || pe.Status != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("error = %+v, want context.Canceled, not retryable", pe)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry after cancel)", n)
	}

	// A caller waiting for a slot gives up with its context too.
	release := make(chan struct{})
	srv2 := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		writeJSON(w, 200, "req", completion("hi", "", "stop"))
	})
	c2 := newTestChat(t, srv2.URL, func(c *Config) { c.MaxConcurrency = 1 })
	done := make(chan error, 1)
	go func() {
		_, err := c2.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
		done <- err
	}()
	for len(srv2.requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	_, err = c2.Complete(ctx2, amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting caller got %v, want its deadline", err)
	}
	providerError(t, err)
	close(release)
	if err := <-done; err != nil {
		t.Errorf("first caller: %v", err)
	}
}

func TestCompleteConcurrencyBound(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		writeJSON(w, 200, "req", completion("hi", "", "stop"))
	})
	c := newTestChat(t, srv.URL, func(c *Config) { c.MaxConcurrency = 2 })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak in flight = %d, want at most 2", p)
	}
	if n := len(srv.requests()); n != 8 {
		t.Errorf("%d requests, want 8", n)
	}
}

func TestCompleteStructuredFallback(t *testing.T) {
	vllmStyle := `{"object":"error","message":"response_format json_schema is not supported by this model","type":"BadRequestError","param":null,"code":400}`
	openaiStyle := apiError("Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", "invalid_request_error", "response_format")
	for _, tc := range []struct {
		name, rejection string
	}{
		{"openai error body", openaiStyle},
		{"top-level error body", vllmStyle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				rf, _ := body["response_format"].(map[string]any)
				switch rf["type"] {
				case "json_schema":
					writeJSON(w, 400, "req_rejected", tc.rejection)
				case "json_object":
					writeJSON(w, 200, "req_ok", completion(`{"keywords":[]}`, "", "stop"))
				default:
					t.Errorf("unexpected response_format %v", rf)
					writeJSON(w, 500, "req", apiError("?", "server_error", ""))
				}
			})
			c := newTestChat(t, srv.URL, nil)
			req := amem.LLMRequest{System: "Be brief.", Messages: []amem.Message{{Role: "user", Content: "x"}}, Schema: testSchema}
			for i := range 2 {
				resp, err := c.Complete(context.Background(), req)
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if resp.RequestID != "req_ok" {
					t.Errorf("call %d: request ID %q", i, resp.RequestID)
				}
			}
			reqs := srv.requests()
			// The client remembers: the second call goes straight to json_object.
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			for _, r := range reqs[1:] {
				rf, _ := json.Marshal(r.Body["response_format"])
				if string(rf) != `{"type":"json_object"}` {
					t.Errorf("response_format = %s", rf)
				}
				sys := r.Body["messages"].([]any)[0].(map[string]any)
				content, _ := sys["content"].(string)
				if sys["role"] != "system" || !strings.HasPrefix(content, "Be brief.") || !strings.Contains(content, `"required":["keywords"]`) || !strings.Contains(content, "JSON") {
					t.Errorf("system message = %v, want the caller's then the schema", sys)
				}
			}
		})
	}
}

func TestCompleteStructuredFallbackToNone(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if rf, ok := body["response_format"].(map[string]any); ok {
			writeJSON(w, 400, "req_rejected", apiError(fmt.Sprintf("response_format type %v is unsupported", rf["type"]), "invalid_request_error", ""))
			return
		}
		writeJSON(w, 200, "req_ok", completion(`{"keywords":[]}`, "", "stop"))
	})
	c := newTestChat(t, srv.URL, nil)
	if _, err := c.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}, Schema: testSchema}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.requests()); n != 3 {
		t.Errorf("%d requests, want 3 (json_schema, json_object, none)", n)
	}
	// An explicit mode never falls back.
	strict := newTestChat(t, srv.URL, func(c *Config) { c.StructuredOutput = StructuredJSONSchema })
	_, err := strict.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "x"}}, Schema: testSchema})
	if pe := providerError(t, err); pe.Status != 400 {
		t.Errorf("error = %+v, want the 400", pe)
	}
}

func TestNewChatConfig(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Model: "m", StructuredOutput: "xml"},
		{Model: "m", BaseURL: "localhost:11434"},
	} {
		if _, err := NewChat(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewChat(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	if got, want := ParseHeaders("api-key=k1, X-Title = amem ,broken,=x"), map[string]string{"api-key": "k1", "X-Title": "amem"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ParseHeaders: %v, want %v", got, want)
	}
	if got := ParseHeaders(""); got != nil {
		t.Errorf("ParseHeaders(\"\") = %v, want nil", got)
	}
}

// An Azure-style gateway: the deployment in the base URL's path, the API
// version in its query, the key in an api-key header and no bearer token.
func TestCompleteGatewayHeadersAndQuery(t *testing.T) {
	var query, apiKey string
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		query, apiKey = r.URL.RawQuery, r.Header.Get("api-key")
		writeJSON(w, 200, "req_az", completion(`{"keywords":["go"]}`, "", "stop"))
	})
	c := newTestChat(t, srv.URL, func(c *Config) {
		c.BaseURL = srv.URL + "/openai/deployments/gpt-4o?api-version=2024-10-21"
		c.APIKey = ""
		c.Headers = map[string]string{"api-key": "az-secret"}
	})
	if _, err := c.Complete(context.Background(), amem.LLMRequest{Messages: []amem.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	r := srv.requests()[0]
	if r.Path != "/openai/deployments/gpt-4o/chat/completions" || query != "api-version=2024-10-21" || apiKey != "az-secret" || r.Auth != "" {
		t.Fatalf("request %s?%s, api-key %q, Authorization %q", r.Path, query, apiKey, r.Auth)
	}
}
