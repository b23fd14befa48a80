// Package fakellm is a scripted OpenAI-compatible chat server for tests:
// it speaks the real wire format and answers amem's curator prompts the way
// an obedient model would, including obeying injected instructions, so
// tests can show that amem, not the model, keeps notes safe.
package fakellm

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// Model is the model name the server accepts.
const Model = "fake-model"

// Server is an OpenAI-compatible chat completions handler for tests that answers like an
// obedient model: construction writes the first three words as keywords;
// connection (in one call, or links then evolution in two) links every
// candidate and gives M1 the tag "llm-evolved". It also obeys injected
// instructions: for "INJECT <ID>" in a prompt it links and rewrites that
// ID and a reference it was never given.
type Server struct {
	Mu      sync.Mutex
	Prompts []string
	Formats []string // response_format.type of each request
	// Answer answers requests without a schema (the evaluation's answer
	// prompt); nil answers "Not mentioned in the conversation".
	Answer func(prompt string) string
}

var refRE = regexp.MustCompile(`(?m)^(M\d+) "`)
var injectRE = regexp.MustCompile(`INJECT ([0-9A-Z]{26})`)

func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string `json:"model"`
		Messages       []struct{ Role, Content string }
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name string `json:"name"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" || req.Model != Model {
		http.Error(w, `{"error": {"message": "bad request", "type": "invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	user := req.Messages[len(req.Messages)-1].Content
	f.Mu.Lock()
	f.Prompts = append(f.Prompts, req.Messages[0].Content+"\n"+user)
	f.Formats = append(f.Formats, req.ResponseFormat.Type)
	f.Mu.Unlock()
	var answer any
	switch name := req.ResponseFormat.JSONSchema.Name; name {
	case "note_attributes":
		// The note's text is the JSON string after its date.
		var body string
		if err := json.NewDecoder(strings.NewReader(user[strings.Index(user, `"`):])).Decode(&body); err != nil {
			http.Error(w, `{"error": {"message": "note text not quoted"}}`, http.StatusBadRequest)
			return
		}
		words := strings.Fields(strings.ToLower(body))
		answer = map[string]any{"keywords": words[:min(3, len(words))], "tags": []string{"llm"}, "context": "A memory about " + strings.Join(words[:min(3, len(words))], " ") + "."}
	case "links_and_evolution", "links", "evolution":
		// One connect call answers both lists; of two, the first links
		// and the second evolves.
		links, evolve := connect(user)
		out := map[string]any{}
		if name != "evolution" {
			out["links"] = orEmpty(links)
		}
		if name != "links" {
			out["evolve"] = orEmpty(evolve)
		}
		answer = out
	case "":
		text := "Not mentioned in the conversation"
		if f.Answer != nil {
			text = f.Answer(user)
		}
		answer = text
	default:
		http.Error(w, `{"error": {"message": "unknown schema"}}`, http.StatusBadRequest)
		return
	}
	content, _ := json.Marshal(answer)
	if text, ok := answer.(string); ok {
		content = []byte(text)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_fake")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "fake-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": string(content), "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340},
	})
}

// connect links every candidate the prompt shows and gives M1 the tag
// "llm-evolved"; for "INJECT <ID>" it also links and rewrites that ID and a
// reference it was never given.
func connect(user string) (links, evolve []map[string]any) {
	for _, m := range refRE.FindAllStringSubmatch(user, -1) {
		links = append(links, map[string]any{"ref": m[1], "strength": 0.7})
	}
	if len(links) > 0 {
		evolve = append(evolve, map[string]any{"ref": "M1", "context": nil, "tags": []string{"llm-evolved"}})
	}
	for _, m := range injectRE.FindAllStringSubmatch(user, -1) {
		links = append(links, map[string]any{"ref": m[1], "strength": 1})
		evolve = append(evolve, map[string]any{"ref": m[1], "context": "HACKED", "tags": nil})
		evolve = append(evolve, map[string]any{"ref": "M99", "context": "HACKED", "tags": nil})
	}
	return links, evolve
}

func orEmpty(s []map[string]any) []map[string]any {
	if s == nil {
		return []map[string]any{}
	}
	return s
}
