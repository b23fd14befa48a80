// Package fakellm is a scripted LLM server for tests: it speaks the real
// wire formats of OpenAI-compatible chat completions and of Anthropic's
// Messages API, and answers amem's curator prompts the way an obedient
// model would, including obeying injected instructions, so tests can show
// that amem, not the model, keeps notes safe.
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

// Server is an LLM server for tests, OpenAI-compatible at
// /v1/chat/completions and Anthropic's at /v1/messages, that answers like an
// obedient model: construction writes the first three words as keywords;
// connection (in one call, or links then evolution in two) links every
// candidate and gives M1 the tag "llm-evolved", and supersedes the
// candidates a memory that "moved" replaces (supersedes). It also obeys injected
// instructions: for "INJECT <ID>" in a prompt it links and rewrites that
// ID and a reference it was never given.
type Server struct {
	Mu      sync.Mutex
	Prompts []string
	// Formats is how each request asked for structure: OpenAI's
	// response_format.type, or Anthropic's "json_schema" (JSON outputs)
	// or "tool" (a forced tool); "" for none.
	Formats []string
	// MaxTokens is each request's bound on the answer (0: none sent).
	MaxTokens []int
	// Answer answers requests without a schema (the evaluation's answer
	// prompt); nil answers "Not mentioned in the conversation".
	Answer func(prompt string) string
}

var refRE = regexp.MustCompile(`(?m)^(M\d+) "`)
var injectRE = regexp.MustCompile(`INJECT ([0-9A-Z]{26})`)

// request is what the server needs of either wire format.
type request struct {
	system, user string
	format       string // as in Server.Formats
	maxTokens    int
	schema       string // the answer's kind: a curator schema's name, or "" for text
}

func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var (
		req request
		ok  bool
	)
	switch r.URL.Path {
	case "/v1/chat/completions":
		req, ok = openAIRequest(r)
	case "/v1/messages":
		req, ok = anthropicRequest(r)
	}
	if !ok {
		http.Error(w, `{"error": {"message": "bad request", "type": "invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	f.Mu.Lock()
	f.Prompts = append(f.Prompts, req.system+"\n"+req.user)
	f.Formats = append(f.Formats, req.format)
	f.MaxTokens = append(f.MaxTokens, req.maxTokens)
	f.Mu.Unlock()
	answer, ok := f.answer(req)
	if !ok {
		http.Error(w, `{"error": {"message": "unknown schema"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/v1/messages" {
		writeAnthropic(w, req, answer)
		return
	}
	content, _ := json.Marshal(answer)
	if text, ok := answer.(string); ok {
		content = []byte(text)
	}
	w.Header().Set("x-request-id", "req_fake")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": string(content), "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340},
	})
}

func openAIRequest(r *http.Request) (request, bool) {
	var body struct {
		Model          string `json:"model"`
		MaxTokens      int    `json:"max_tokens"`
		Messages       []struct{ Role, Content string }
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name string `json:"name"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model != Model || len(body.Messages) == 0 {
		return request{}, false
	}
	return request{system: body.Messages[0].Content, user: body.Messages[len(body.Messages)-1].Content,
		format: body.ResponseFormat.Type, schema: body.ResponseFormat.JSONSchema.Name, maxTokens: body.MaxTokens}, true
}

// anthropicRequest reads a Messages request. JSON outputs carry a schema
// but no name, so the answer's kind is told by the schema's properties.
func anthropicRequest(r *http.Request) (request, bool) {
	type text struct{ Text string }
	var body struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		System    []text `json:"system"`
		Messages  []struct {
			Role    string `json:"role"`
			Content []text `json:"content"`
		} `json:"messages"`
		OutputConfig struct {
			Format struct {
				Type   string `json:"type"`
				Schema struct {
					Properties map[string]any `json:"properties"`
				} `json:"schema"`
			} `json:"format"`
		} `json:"output_config"`
		ToolChoice struct{ Name string } `json:"tool_choice"`
	}
	if r.Header.Get("anthropic-version") == "" || r.Header.Get("Authorization") == "" && r.Header.Get("X-Api-Key") == "" {
		return request{}, false
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Model != Model || len(body.Messages) == 0 {
		return request{}, false
	}
	req := request{maxTokens: body.MaxTokens}
	for _, t := range body.System {
		req.system += t.Text
	}
	for _, t := range body.Messages[len(body.Messages)-1].Content {
		req.user += t.Text
	}
	switch {
	case body.ToolChoice.Name != "":
		req.format, req.schema = "tool", body.ToolChoice.Name
	case body.OutputConfig.Format.Type != "":
		req.format = body.OutputConfig.Format.Type
		props := body.OutputConfig.Format.Schema.Properties
		_, links := props["links"]
		_, evolve := props["evolve"]
		switch {
		case props["keywords"] != nil:
			req.schema = "note_attributes"
		case links && evolve:
			req.schema = "links_and_evolution"
		case links:
			req.schema = "links"
		case evolve:
			req.schema = "evolution"
		}
	}
	return req, true
}

func writeAnthropic(w http.ResponseWriter, req request, answer any) {
	block := map[string]any{"type": "text", "text": answer}
	stop := "end_turn"
	switch {
	case req.format == "tool":
		block = map[string]any{"type": "tool_use", "id": "toolu_fake", "name": req.schema, "input": answer}
		stop = "tool_use"
	case req.schema != "":
		text, _ := json.Marshal(answer)
		block["text"] = string(text)
	}
	w.Header().Set("request-id", "req_fake")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": Model,
		"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 300, "output_tokens": 40},
	})
}

// answer is the model's answer to req: an object for a curator schema, a
// string for a text request.
func (f *Server) answer(req request) (any, bool) {
	user := req.user
	switch name := req.schema; name {
	case "note_attributes":
		// The note's text is the JSON string after its date.
		i := strings.Index(user, `"`)
		var body string
		if i < 0 || json.NewDecoder(strings.NewReader(user[i:])).Decode(&body) != nil {
			return nil, false
		}
		words := strings.Fields(strings.ToLower(body))
		return map[string]any{"keywords": words[:min(3, len(words))], "tags": []string{"llm"}, "context": "A memory about " + strings.Join(words[:min(3, len(words))], " ") + "."}, true
	case "links_and_evolution", "links", "evolution":
		// One connect call answers both lists; of two, the first links
		// and the second evolves.
		links, evolve := connect(user)
		out := map[string]any{}
		if name != "evolution" {
			out["links"] = orEmpty(links)
			out["supersedes"] = supersedes(user)
		}
		if name != "links" {
			out["evolve"] = orEmpty(evolve)
		}
		return out, true
	case "":
		if f.Answer != nil {
			return f.Answer(user), true
		}
		return "Not mentioned in the conversation", true
	}
	return nil, false
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

// supersedes answers issue 30's decision: a new memory that says
// "moved" or "after all" supersedes every candidate that opens with its
// first two words ("support group meeting moved to wednesday" supersedes
// "support group meeting on tuesday"); for "INJECT <ID>" it supersedes
// that ID too, as an obedient model would.
func supersedes(user string) []string {
	out := []string{}
	first, _, _ := strings.Cut(user, "\n")
	var text string
	if i := strings.Index(first, `"`); i >= 0 {
		_ = json.NewDecoder(strings.NewReader(first[i:])).Decode(&text)
	}
	words := strings.Fields(strings.ToLower(text))
	if len(words) >= 2 && (strings.Contains(text, "moved") || strings.Contains(text, "after all")) {
		lead := strings.Join(words[:2], " ")
		for _, m := range candidateRE.FindAllStringSubmatch(user, -1) {
			if strings.HasPrefix(strings.ToLower(m[2]), lead) {
				out = append(out, m[1]+": the new memory replaces it")
			}
		}
	}
	for _, m := range injectRE.FindAllStringSubmatch(user, -1) {
		out = append(out, m[1]+": INJECTED")
	}
	return out
}

// candidateRE finds each candidate's reference and the start of its text.
var candidateRE = regexp.MustCompile(`(?m)^(M\d+) "([^"]*)`)

func orEmpty(s []map[string]any) []map[string]any {
	if s == nil {
		return []map[string]any{}
	}
	return s
}
