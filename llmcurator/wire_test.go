package llmcurator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/anthropic"
	"github.com/amem-dev/amem/lexical"
	"github.com/amem-dev/amem/llmcurator"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/openai"
	"github.com/amem-dev/amem/sqlite"
)

// A wire is one provider's API as a scripted httptest server: it checks
// each request and answers the next scripted reply in that API's format.
type wire struct {
	name string
	// llm returns the provider's amem.LLM for a server URL.
	llm func(t *testing.T, url string) amem.LLM
	// write answers with text and a finish: "stop", "length" or
	// "refusal" (with text as the refusal).
	write func(w http.ResponseWriter, text, finish string)
	// check checks a request body: the model and the schema sent.
	check func(t *testing.T, body map[string]any)
	// messages returns the request's conversation, system prompt aside.
	messages func(body map[string]any) []any
}

const wireModel = "test-model"

var wires = []wire{
	{
		name: "openai",
		llm: func(t *testing.T, url string) amem.LLM {
			c, err := openai.NewChat(openai.Config{BaseURL: url + "/v1", APIKey: "sk-test", Model: wireModel, MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
		write: func(w http.ResponseWriter, text, finish string) {
			msg := map[string]any{"role": "assistant", "content": text, "refusal": nil}
			if finish == "refusal" {
				msg["content"], msg["refusal"], finish = nil, text, "stop"
			}
			writeJSON(w, map[string]any{
				"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": wireModel,
				"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg, "logprobs": nil}},
				"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
			})
		},
		check: func(t *testing.T, body map[string]any) {
			rf, _ := body["response_format"].(map[string]any)
			if body["model"] != wireModel || rf["type"] != "json_schema" {
				t.Errorf("model %v, response_format %v", body["model"], body["response_format"])
			}
		},
		messages: func(body map[string]any) []any { return body["messages"].([]any)[1:] },
	},
	{
		name: "anthropic",
		llm: func(t *testing.T, url string) amem.LLM {
			c, err := anthropic.New(anthropic.Config{BaseURL: url, APIKey: "sk-ant-test", Model: wireModel, MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
		write: func(w http.ResponseWriter, text, finish string) {
			stop := map[string]string{"stop": "end_turn", "length": "max_tokens", "refusal": "refusal"}[finish]
			writeJSON(w, map[string]any{
				"id": "msg_1", "type": "message", "role": "assistant", "model": wireModel,
				"content":     []any{map[string]any{"type": "text", "text": text}},
				"stop_reason": stop, "stop_sequence": nil,
				"usage": map[string]any{"input_tokens": 100, "output_tokens": 10},
			})
		},
		check: func(t *testing.T, body map[string]any) {
			oc, _ := body["output_config"].(map[string]any)
			format, _ := oc["format"].(map[string]any)
			if body["model"] != wireModel || format["type"] != "json_schema" || format["schema"] == nil {
				t.Errorf("model %v, output_config %v", body["model"], body["output_config"])
			}
		},
		messages: func(body map[string]any) []any { return body["messages"].([]any) },
	},
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_1")
	w.Header().Set("request-id", "req_1")
	json.NewEncoder(w).Encode(v)
}

type reply struct{ text, finish string }

// scriptedWire serves wire's API, answering the replies in order.
type scriptedWire struct {
	t       *testing.T
	wire    wire
	mu      sync.Mutex
	replies []reply
	bodies  []map[string]any
}

func (s *scriptedWire) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.t.Errorf("request body: %v", err)
	}
	s.wire.check(s.t, body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies = append(s.bodies, body)
	if len(s.replies) == 0 {
		s.t.Error("more requests than scripted replies")
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	next := s.replies[0]
	s.replies = s.replies[1:]
	s.wire.write(w, next.text, next.finish)
}

// TestModelAnswersOverTheWire adds a note through the LLM curator while
// each provider's API answers badly in one of the ways real models do:
// malformed JSON once (repaired) or twice (the note is stored, failed and
// retryable), an answer cut at the token limit, and a refusal.
func TestModelAnswersOverTheWire(t *testing.T) {
	good := reply{`{"keywords": ["support group"], "tags": ["community"], "context": "Caroline went to a support group."}`, "stop"}
	malformed := reply{`{"keywords": ["support group"], "tags": [`, "stop"}
	for _, wr := range wires {
		for _, tc := range []struct {
			name    string
			replies []reply
			// wantErr is in the failed note's error; "" wants it done.
			wantErr string
			repair  string // in the repair turn, if any
		}{
			{"success", []reply{good}, "", ""},
			{"malformed then repaired", []reply{malformed, good}, "", "could not be used"},
			{"malformed twice", []reply{malformed, {"Sure! Here it is: {keywords}", "stop"}}, "malformed model output", "could not be used"},
			{"cut at the token limit", []reply{{`{"keywords": ["supp`, "length"}, good}, "", "cut off at the token limit"},
			{"refusal", []reply{{"I can't help with that.", "refusal"}}, "model refused", ""},
		} {
			t.Run(wr.name+"/"+tc.name, func(t *testing.T) {
				ctx := context.Background()
				api := &scriptedWire{t: t, wire: wr, replies: tc.replies}
				srv := httptest.NewServer(api)
				defer srv.Close()
				st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), nil)
				if err != nil {
					t.Fatal(err)
				}
				mem, err := memory.Open(ctx, st, &memory.Options{Embedder: lexical.New(nil), Curator: llmcurator.New(wr.llm(t, srv.URL), nil)})
				if err != nil {
					t.Fatal(err)
				}
				defer mem.Close()

				n, err := mem.Add(ctx, amem.AddRequest{Namespace: "ns", Content: "Caroline: I went to an LGBTQ support group yesterday."})
				if err != nil {
					t.Fatalf("Add: %v (a model's failure must not lose the note)", err)
				}
				calls := len(tc.replies)
				if len(api.bodies) != calls {
					t.Fatalf("%d requests, want %d", len(api.bodies), calls)
				}
				if tc.repair != "" {
					// The repair turn shows the model its answer and the problem.
					msgs := wr.messages(api.bodies[1])
					last, _ := json.Marshal(msgs[len(msgs)-1])
					if len(msgs) != 3 || !strings.Contains(string(last), tc.repair) {
						t.Fatalf("repair request messages: %v", msgs)
					}
				}
				stats, err := mem.Stats(ctx, "ns")
				if err != nil {
					t.Fatal(err)
				}
				if u := stats[0].Usage; len(u) != 1 || u[0].Operation != "construct" || u[0].PromptTokens != 100*calls || u[0].CompletionTokens != 10*calls {
					t.Fatalf("usage %+v, want every call's tokens under construct", u)
				}
				if tc.wantErr == "" {
					if n.Enrichment.State != amem.EnrichDone || n.Context != "Caroline went to a support group." {
						t.Fatalf("note %+v", n)
					}
					return
				}
				if n.Enrichment.State != amem.EnrichFailed || !strings.Contains(n.Enrichment.Error, tc.wantErr) || n.Content == "" {
					t.Fatalf("note %+v, want it stored and failed with %q", n.Enrichment, tc.wantErr)
				}
				// Failed is retryable: once the model answers, the note is done.
				api.mu.Lock()
				api.replies = []reply{good}
				api.mu.Unlock()
				n, err = mem.Enrich(ctx, "ns", n.ID)
				if err != nil || n.Enrichment.State != amem.EnrichDone || n.Context != "Caroline went to a support group." {
					t.Fatalf("retry: %+v, %v", n, err)
				}
			})
		}
	}
}
