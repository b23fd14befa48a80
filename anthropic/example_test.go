package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/anthropic"
)

func Example() {
	// A stand-in for api.anthropic.com that answers with a forced tool call.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", "req_011CUxample")
		fmt.Fprint(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
			"content":[{"type":"tool_use","id":"toolu_01","name":"keywords","input":{"keywords":["Lisbon","move"]}}],
			"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":31,"output_tokens":12}}`)
	}))
	defer srv.Close()

	llm, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-example", Model: "claude-sonnet-4-5"})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := llm.Complete(context.Background(), amem.LLMRequest{
		System:   "Extract keywords.",
		Messages: []amem.Message{{Role: "user", Content: "Alice moved to Lisbon."}},
		Schema: &amem.JSONSchema{
			Name:   "keywords",
			Schema: json.RawMessage(`{"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"}}},"required":["keywords"]}`),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text)
	fmt.Println(resp.FinishReason, resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.RequestID)
	// Output:
	// {"keywords":["Lisbon","move"]}
	// stop 31 12 req_011CUxample
}
