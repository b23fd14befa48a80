// Package llmcurator is the A-Mem curator backed by an LLM: the paper's note
// construction, link generation and memory evolution as prompts with JSON
// schemas, every answer validated, one repair attempt for malformed output.
//
// Candidates are shown to the model under short references (M1, M2, ...)
// that are mapped back to note IDs; a reference the prompt did not give is
// dropped and logged, so a note's text can never make the curator touch a
// note it was not shown (amem.Memory checks the IDs again). Note text sits
// between <memory> tags and the system prompts say it is data, never
// instructions.
package llmcurator

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/amem-dev/amem"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Each prompt file defines "system" and/or "user"; each is its own set so
// the names don't collide.
var (
	constructPrompt = parsePrompt("construct.tmpl")
	connectPrompt   = parsePrompt("connect.tmpl")
	repairPrompt    = parsePrompt("repair.tmpl")
)

var memoryTag = strings.NewReplacer("<memory>", "< memory>", "</memory>", "< /memory>")

func parsePrompt(file string) *template.Template {
	return template.Must(template.New(file).Funcs(template.FuncMap{
		"join": func(s []string) string { return strings.Join(s, ", ") },
		// first and clip keep candidates short: they are most of a
		// connect prompt's tokens, and the content carries the meaning.
		"first": func(n int, s []string) []string { return s[:min(n, len(s))] },
		"clip":  clip,
		// A note can't close the <memory> tag around it and write outside.
		"data": func(s string) string { return memoryTag.Replace(s) },
	}).ParseFS(promptFS, "prompts/"+file))
}

// Options configure a Curator; zero fields mean the defaults.
type Options struct {
	// MaxKeywords and MaxTags bound what construction asks for (8 and 3).
	MaxKeywords, MaxTags int
	// MaxTokens bounds each completion (default 600).
	MaxTokens int
	// Logger receives dropped references and repairs (default: discard).
	Logger *slog.Logger
}

// Curator prompts an LLM. It is safe for concurrent use if the LLM is.
type Curator struct {
	llm  amem.LLM
	opts Options
	log  *slog.Logger
}

var _ amem.Curator = (*Curator)(nil)

// New returns a Curator over llm.
func New(llm amem.LLM, opts *Options) *Curator {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxKeywords <= 0 {
		o.MaxKeywords = 8
	}
	if o.MaxTags <= 0 {
		o.MaxTags = 3
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 600
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Curator{llm: llm, opts: o, log: log}
}

// ErrMalformed is returned (wrapped) when the model's answer was not a
// valid object of the schema even after one repair attempt.
var ErrMalformed = errors.New("malformed model output")

// ErrRefused is returned (wrapped) when the model refused.
var ErrRefused = errors.New("model refused")

type constructOut struct {
	Keywords []string `json:"keywords"`
	Tags     []string `json:"tags"`
	Context  string   `json:"context"`
}

var constructSchema = &amem.JSONSchema{
	Name:        "note_attributes",
	Description: "keywords, tags and context of a memory note",
	Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["keywords","tags","context"],"properties":{` +
		`"keywords":{"type":"array","items":{"type":"string"}},` +
		`"tags":{"type":"array","items":{"type":"string"}},` +
		`"context":{"type":"string"}}}`),
}

// Construct asks the model for the note's keywords, tags and context.
func (c *Curator) Construct(ctx context.Context, note amem.Note) (amem.Attributes, error) {
	data := map[string]any{
		"Content": note.Content, "Time": when(note.EventTime),
		"MaxKeywords": c.opts.MaxKeywords, "MinTags": 1, "MaxTags": c.opts.MaxTags,
	}
	var out constructOut
	usage, err := c.ask(ctx, constructPrompt, data, constructSchema, &out, func() error {
		if strings.TrimSpace(out.Context) == "" {
			return errors.New(`"context" is empty`)
		}
		if len(out.Keywords) == 0 {
			return errors.New(`"keywords" is empty`)
		}
		return nil
	})
	if err != nil {
		return amem.Attributes{Usage: usage}, fmt.Errorf("construct: %w", err)
	}
	return amem.Attributes{Keywords: out.Keywords, Tags: out.Tags, Context: out.Context, Usage: usage}, nil
}

type connectOut struct {
	Links []struct {
		Ref      string  `json:"ref"`
		Reason   string  `json:"reason"`
		Strength float64 `json:"strength"`
	} `json:"links"`
	Evolve []struct {
		Ref      string   `json:"ref"`
		Context  *string  `json:"context"`
		Tags     []string `json:"tags"`
		Keywords []string `json:"keywords"`
		Reason   string   `json:"reason"`
	} `json:"evolve"`
}

var connectSchema = &amem.JSONSchema{
	Name:        "links_and_evolution",
	Description: "which candidate memories to link and how they evolve",
	Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["links","evolve"],"properties":{` +
		`"links":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["ref","reason","strength"],"properties":{` +
		`"ref":{"type":"string"},"reason":{"type":"string"},"strength":{"type":"number"}}}},` +
		`"evolve":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["ref","context","tags","keywords","reason"],"properties":{` +
		`"ref":{"type":"string"},"context":{"type":["string","null"]},"tags":{"type":["array","null"],"items":{"type":"string"}},` +
		`"keywords":{"type":["array","null"],"items":{"type":"string"}},"reason":{"type":"string"}}}}}}`),
}

type shown struct {
	Ref        string
	Time       string
	Similarity float64
	amem.Note
}

// Connect asks the model which candidates to link and how to evolve them,
// in one call. References are mapped back to IDs; unknown ones are dropped.
func (c *Curator) Connect(ctx context.Context, note amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	if len(cands) == 0 {
		return amem.Decision{}, nil
	}
	refs := make(map[string]string, len(cands))
	list := make([]shown, len(cands))
	for i, cd := range cands {
		ref := fmt.Sprintf("M%d", i+1)
		refs[ref] = cd.Note.ID
		list[i] = shown{Ref: ref, Time: when(cd.Note.EventTime), Similarity: cd.Similarity, Note: cd.Note}
	}
	data := map[string]any{
		"Note":       shown{Time: when(note.EventTime), Note: note},
		"Candidates": list,
	}
	var out connectOut
	usage, err := c.ask(ctx, connectPrompt, data, connectSchema, &out, nil)
	if err != nil {
		return amem.Decision{Usage: usage}, fmt.Errorf("connect: %w", err)
	}
	d := amem.Decision{Usage: usage}
	resolve := func(ref string) (string, bool) {
		id, ok := refs[strings.TrimSpace(strings.Trim(ref, "[]"))]
		if !ok {
			c.log.Warn("model named a reference it was not given; dropped", "note", note.ID, "ref", ref)
		}
		return id, ok
	}
	for _, l := range out.Links {
		if id, ok := resolve(l.Ref); ok {
			d.Links = append(d.Links, amem.LinkDecision{Target: id, Reason: l.Reason, Strength: l.Strength})
		}
	}
	for _, e := range out.Evolve {
		if id, ok := resolve(e.Ref); ok {
			d.Evolve = append(d.Evolve, amem.Evolution{Target: id, Context: e.Context, Tags: e.Tags, Keywords: e.Keywords, Reason: e.Reason})
		}
	}
	return d, nil
}

// ask renders a prompt's system and user templates, calls the model and
// decodes its answer into out, checking it with check. A malformed or
// truncated answer gets one repair turn; then ErrMalformed.
func (c *Curator) ask(ctx context.Context, prompt *template.Template, data any, schema *amem.JSONSchema, out any, check func() error) (amem.Usage, error) {
	system, err := render(prompt, "system", data)
	if err != nil {
		return amem.Usage{}, err
	}
	user, err := render(prompt, "user", data)
	if err != nil {
		return amem.Usage{}, err
	}
	req := amem.LLMRequest{
		System: system, Messages: []amem.Message{{Role: "user", Content: user}},
		Schema: schema, MaxTokens: c.opts.MaxTokens,
	}
	var usage amem.Usage
	for attempt := 0; attempt < 2; attempt++ {
		resp, err := c.llm.Complete(ctx, req)
		if err != nil {
			return usage, err
		}
		usage = usage.Add(resp.Usage)
		if resp.FinishReason == amem.FinishRefusal {
			return usage, fmt.Errorf("%w: %s", ErrRefused, oneLine(resp.Text))
		}
		problem := ""
		if resp.FinishReason == amem.FinishLength {
			problem = "it was cut off at the token limit; answer more briefly"
		} else if err := decodeFirstObject(resp.Text, out); err != nil {
			problem = err.Error()
		} else if check != nil {
			if err := check(); err != nil {
				problem = err.Error()
			}
		}
		if problem == "" {
			return usage, nil
		}
		if attempt == 1 {
			return usage, fmt.Errorf("%w after a repair attempt: %s", ErrMalformed, problem)
		}
		c.log.Info("model answer unusable; asking for a repair", "problem", problem)
		repair, err := render(repairPrompt, "user", map[string]any{"Problem": problem})
		if err != nil {
			return usage, err
		}
		req.Messages = append(req.Messages,
			amem.Message{Role: "assistant", Content: resp.Text},
			amem.Message{Role: "user", Content: repair})
	}
	return usage, nil // unreachable
}

func render(t *template.Template, name string, data any) (string, error) {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s/%s: %w", t.Name(), name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// when formats an event time for a prompt: the date, which is what
// linking and temporal questions need; the zero time is "date unknown".
func when(t time.Time) string {
	if t.IsZero() {
		return "date unknown"
	}
	return t.UTC().Format("2 January 2006")
}

// clip cuts s to at most n bytes at a word boundary, marking the cut.
func clip(n int, s string) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut] + "…"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
