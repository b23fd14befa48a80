// Package llmcurator is the A-Mem curator backed by an LLM: the paper's note
// construction, link generation and memory evolution as prompts with JSON
// schemas, every answer validated, one repair attempt for malformed output.
//
// Candidates are shown to the model under short references (M1, M2, ...)
// that are mapped back to note IDs; a reference the prompt did not give is
// dropped and logged, so a note's text can never make the curator touch a
// note it was not shown (memory.Memory checks the IDs again). Note text is
// quoted as a JSON string it cannot close, and the system prompts say it
// is data, never instructions.
//
// # What a prompt shows
//
// Every field shown or asked for is paid for on every Add, so prompts show
// what the method needs and no more. Candidates are listed oldest first,
// each date once, with their text clipped at 200 bytes and their context
// at 120; not their keywords (nothing rewrites them) nor their tags
// (evolution only adds tags, so the model need not see them). The schemas
// ask for no reasons. Estimated on 100 LoCoMo turns with 10 candidates each
// (TestPromptTokens; scripts/count-tokens.sh counts the same text with
// o200k_base), an Add costs about 1,180 tokens with one call: 180 + 45
// (prompt + completion) to construct, 900 + 55 to connect, the completions
// being what the offline curator decides for the same notes. The A-Mem
// paper's figure is 1,200.
//
// # One call or two
//
// Connect decides links and evolutions in one call (OneCall, the default)
// or two (TwoCalls): links over the candidates' text alone, then, only if
// something was linked, the evolutions of the linked candidates with their
// whole context. Two calls pay the system prompt, the new note and a schema
// twice, and on the same measure cost about 1,235 tokens per Add: the
// first call's prompt is about 570, the second's 435. They are cheaper only
// for Adds that link nothing (about 820 tokens), and the offline curator
// links 3 candidates per Add on LoCoMo, 88 Adds in 100 at least one. So
// one call, also one round trip, is the default. Which decides better is
// not measured: no model was reachable.
package llmcurator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/amem-dev/amem"
)

// quote fences text written by users or models as JSON (a string, or a
// list of them): a note cannot close the quotes around it (its own are
// escaped) and write outside, and quote marks cost fewer tokens than any
// pair of tags.
func quote[T string | []string](v T) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings always encode
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Options configure a Curator; zero fields mean the defaults.
type Options struct {
	// MaxKeywords and MaxTags bound what construction asks for (8 and 3).
	MaxKeywords, MaxTags int
	// MaxTokens bounds each completion (default 600).
	MaxTokens int
	// Logger receives dropped references and repairs (default: discard).
	Logger *slog.Logger
	// Connect is how Connect asks the model (default OneCall).
	Connect ConnectMode
	// TracerProvider makes the llm.call spans (tracing.go); nil means
	// otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
}

// ConnectMode says how many calls Connect makes; see the package comment
// for what each costs.
type ConnectMode string

const (
	// OneCall decides links and evolutions in one call that shows every
	// candidate with its first keywords and tags and its context, clipped.
	OneCall ConnectMode = "one"
	// TwoCalls decides links in a call that shows the candidates' dates and
	// text, then, only when something was linked, asks for the evolutions
	// of the linked candidates, shown with all their attributes.
	TwoCalls ConnectMode = "two"
)

// Curator prompts an LLM. It is safe for concurrent use if the LLM is.
type Curator struct {
	llm  amem.LLM
	opts Options
	log  *slog.Logger
}

var _ amem.Curator = (*Curator)(nil)

// New returns a Curator over llm. It panics on an unknown ConnectMode.
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
	switch o.Connect {
	case "":
		o.Connect = OneCall
	case OneCall, TwoCalls:
	default:
		panic(fmt.Sprintf("llmcurator: unknown ConnectMode %q", o.Connect))
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

var constructSchema = schema("note_attributes", `"required":["keywords","tags","context"],"properties":{`+
	`"keywords":{"type":"array","items":{"type":"string"}},"tags":{"type":"array","items":{"type":"string"}},"context":{"type":"string"}}`)

// Construct asks the model for the note's keywords, tags and context.
func (c *Curator) Construct(ctx context.Context, note amem.Note) (amem.Attributes, error) {
	vars := constructVars{Content: note.Content, Time: when(note.EventTime),
		MaxKeywords: c.opts.MaxKeywords, MinTags: 1, MaxTags: c.opts.MaxTags}
	var out constructOut
	usage, err := c.ask(ctx, constructPrompt(vars), constructSchema, &out, func() error {
		if strings.TrimSpace(out.Context) == "" {
			return errors.New(`"context" is empty`)
		}
		if len(out.Keywords) == 0 {
			return errors.New(`"keywords" is empty`)
		}
		return nil
	})
	if err != nil {
		return amem.Attributes{Usage: usage}, err
	}
	return amem.Attributes{Keywords: out.Keywords, Tags: out.Tags, Context: out.Context, Usage: usage}, nil
}

// Answers as the connect prompts' schemas have them.
type (
	linkOut struct {
		Ref      string  `json:"ref"`
		Strength float64 `json:"strength"`
	}
	evolveOut struct {
		Ref     string   `json:"ref"`
		Context *string  `json:"context"`
		Tags    []string `json:"tags"`
	}
	connectOut struct {
		Links  []linkOut   `json:"links"`
		Evolve []evolveOut `json:"evolve"`

		Supersedes []string `json:"supersedes"`
	}
	linksOut struct {
		Links []linkOut `json:"links"`

		Supersedes []string `json:"supersedes"`
	}
	evolutionOut struct {
		Evolve []evolveOut `json:"evolve"`
	}
)

// The schemas make every property required, with null where a value may
// be absent, as OpenAI's strict structured output wants. The three connect
// schemas share their lists. They ask for what the paper's method uses and
// no more, since every field is paid for in each answer: no reasons (the
// history says which note evolved a neighbour), and evolution rewrites a
// neighbour's context and tags, as in the paper, not its keywords.
const (
	linksProperty = `"links":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["ref","strength"],"properties":{` +
		`"ref":{"type":"string"},"strength":{"type":"number"}}}}`
	evolveProperty = `"evolve":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["ref","context","tags"],"properties":{` +
		`"ref":{"type":"string"},"context":{"type":["string","null"]},"tags":{"type":["array","null"],"items":{"type":"string"}}}}}`
	// supersedesProperty asks for a reason, unlike links: a supersession
	// is rare, and its reason is what the old note's history keeps. Each
	// is one string, "M2: reason", since an object per item would cost
	// every connect call some 25 more tokens of schema.
	supersedesProperty = `"supersedes":{"type":"array","items":{"type":"string"}}`
)

var (
	connectSchema   = schema("links_and_evolution", `"required":["links","evolve","supersedes"],"properties":{`+linksProperty+`,`+evolveProperty+`,`+supersedesProperty+`}`)
	linksSchema     = schema("links", `"required":["links","supersedes"],"properties":{`+linksProperty+`,`+supersedesProperty+`}`)
	evolutionSchema = schema("evolution", `"required":["evolve"],"properties":{`+evolveProperty+`}`)
)

// schema wraps the required list and properties of a closed object. There
// is no description: the system prompt already says what the object is.
func schema(name, members string) *amem.JSONSchema {
	return &amem.JSONSchema{Name: name, Schema: json.RawMessage(`{"type":"object","additionalProperties":false,` + members + `}`)}
}

// A view is how much of a note a prompt shows: the bytes of content and
// context (clipped at a word), the number of tags; zero leaves a field out.
type view struct{ content, tags, context int }

const all = math.MaxInt

// Candidates are most of a connect prompt's tokens, and their content
// carries the meaning, so the other fields are cut first. Linking needs
// nothing else: keywords, tags and context are derived from the content.
// Evolution rewrites a context, so it sees it: in one call, clipped; in the
// second of two calls, whole but only for the linked candidates. It only
// adds tags (see evolutions), so candidates' tags are not shown, nor their
// keywords, which nothing rewrites. The new note shows its tags, which the
// model may pass on to candidates.
var (
	noteView    = view{content: all, tags: all}
	oneCallView = view{content: 200, context: 120}
	linkNote    = view{content: all}
	linkView    = view{content: 200}
	evolveView  = view{content: 200, context: all}
)

// shown is a note as a prompt shows it, under its reference. Candidates
// are listed by date, each date once, in the Day of the first of its notes.
type shown struct {
	Ref, Time, Day, Content, Context string
	Tags                             []string
	note                             amem.Note
}

func (v view) show(ref string, n amem.Note) shown {
	return shown{
		Ref: ref, Time: when(n.EventTime), note: n,
		Content: clip(v.content, n.Content),
		Context: clip(v.context, n.Context),
		Tags:    n.Tags[:min(v.tags, len(n.Tags))],
	}
}

// show lists the candidates oldest first, as a timeline, with references
// M1 to Mk in that order.
func show(cands []amem.Candidate, v view) []shown {
	notes := make([]amem.Note, len(cands))
	for i, cd := range cands {
		notes[i] = cd.Note
	}
	slices.SortStableFunc(notes, func(a, b amem.Note) int { return a.EventTime.Compare(b.EventTime) })
	list := make([]shown, len(notes))
	for i, n := range notes {
		list[i] = v.show(fmt.Sprintf("M%d", i+1), n)
	}
	return byDay(list)
}

// byDay sets each note's Day where the list's date changes: a date costs
// as many tokens as a short phrase, and memories come many a day.
func byDay(list []shown) []shown {
	for i := range list {
		list[i].Day = ""
		if i == 0 || list[i].Time != list[i-1].Time {
			list[i].Day = list[i].Time
		}
	}
	return list
}

// Attributes is the line of tags and context under a note's text, naming
// only those shown and not empty.
func (s shown) Attributes() string {
	var parts []string
	if len(s.Tags) > 0 {
		parts = append(parts, "tags: "+quote(s.Tags))
	}
	if s.Context != "" {
		parts = append(parts, "context: "+quote(s.Context))
	}
	return strings.Join(parts, " | ")
}

func connectData(note amem.Note, v view, list []shown) connectVars {
	return connectVars{Note: v.show("", note), Candidates: list}
}

// Connect asks the model which candidates to link and how to evolve them,
// in one call or two as Options.Connect says. References are mapped back
// to IDs; unknown ones are dropped.
func (c *Curator) Connect(ctx context.Context, note amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	if len(cands) == 0 {
		return amem.Decision{}, nil
	}
	if c.opts.Connect == TwoCalls {
		return c.connectTwice(ctx, note, cands)
	}
	return c.connectOnce(ctx, note, cands)
}

func (c *Curator) connectOnce(ctx context.Context, note amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	list := show(cands, oneCallView)
	var out connectOut
	usage, err := c.ask(ctx, connectPrompt(connectData(note, noteView, list)), connectSchema, &out, nil)
	d := amem.Decision{Usage: usage}
	if err != nil {
		return d, err
	}
	d.Links = c.links(note, list, out.Links)
	d.Evolve = c.evolutions(note, list, out.Evolve)
	d.Supersede = c.supersessions(note, list, out.Supersedes)
	return d, nil
}

// connectTwice decides links over compact candidates, then asks for the
// evolutions of the linked ones only, shown in full; no links, no second
// call. The second call's tokens are the decision's EvolveUsage.
func (c *Curator) connectTwice(ctx context.Context, note amem.Note, cands []amem.Candidate) (amem.Decision, error) {
	list := show(cands, linkView)
	var links linksOut
	usage, err := c.ask(ctx, linksPrompt(connectData(note, linkNote, list)), linksSchema, &links, nil)
	d := amem.Decision{Usage: usage}
	if err != nil {
		return d, err
	}
	d.Links = c.links(note, list, links.Links)
	d.Supersede = c.supersessions(note, list, links.Supersedes)
	linked := make(map[string]bool, len(d.Links))
	for _, l := range d.Links {
		linked[l.Target] = true
	}
	full := byDay(slices.DeleteFunc(show(cands, evolveView), func(s shown) bool { return !linked[s.note.ID] }))
	if len(full) == 0 {
		return d, nil
	}
	var evolve evolutionOut
	d.EvolveUsage, err = c.ask(ctx, evolvePrompt(connectData(note, noteView, full)), evolutionSchema, &evolve, nil)
	if err != nil {
		return d, fmt.Errorf("evolve: %w", err)
	}
	d.Evolve = c.evolutions(note, full, evolve.Evolve)
	return d, nil
}

// links maps link answers to the candidates of list they name.
func (c *Curator) links(note amem.Note, list []shown, out []linkOut) []amem.LinkDecision {
	var ls []amem.LinkDecision
	for _, l := range out {
		if s, ok := c.resolve(note, list, l.Ref); ok {
			ls = append(ls, amem.LinkDecision{Target: s.note.ID, Strength: l.Strength})
		}
	}
	return ls
}

// supersessions maps supersession answers, "M2: reason", to the
// candidates of list they name, each once.
func (c *Curator) supersessions(note amem.Note, list []shown, out []string) []amem.Supersession {
	var ss []amem.Supersession
	for _, s := range out {
		ref, reason, _ := strings.Cut(s, ":")
		if sh, ok := c.resolve(note, list, ref); ok && !slices.ContainsFunc(ss, func(x amem.Supersession) bool { return x.Target == sh.note.ID }) {
			ss = append(ss, amem.Supersession{Target: sh.note.ID, Reason: strings.TrimSpace(reason)})
		}
	}
	return ss
}

// evolutions maps evolution answers to the candidates of list they name.
// The answer's tags are added to the note's: the model was not shown them,
// so it cannot have meant to drop any. No tags, no change; a blank context
// is no change either, never an erased one, and nor is a context for a
// note whose context its caller wrote (amem.Note.CallerContext), which
// the engine would not apply either. Evolutions that change nothing are
// left out.
func (c *Curator) evolutions(note amem.Note, list []shown, out []evolveOut) []amem.Evolution {
	var es []amem.Evolution
	for _, e := range out {
		s, ok := c.resolve(note, list, e.Ref)
		if !ok {
			continue
		}
		ev := amem.Evolution{Target: s.note.ID}
		if e.Context != nil && strings.TrimSpace(*e.Context) != "" && !s.note.CallerContext {
			ev.Context = e.Context
		}
		if len(e.Tags) > 0 {
			ev.Tags = append(slices.Clone(s.note.Tags), e.Tags...)
		}
		if ev.Context != nil || ev.Tags != nil {
			es = append(es, ev)
		}
	}
	return es
}

// resolve finds the candidate a reference names among those shown. Models
// write references loosely ("[M2]", "m2", "2", "M02"), so those forms name
// M2 too.
func (c *Curator) resolve(note amem.Note, list []shown, ref string) (shown, bool) {
	want := strings.ToUpper(strings.Trim(ref, "[]\"' "))
	if n, err := strconv.Atoi(strings.TrimPrefix(want, "M")); err == nil && n > 0 {
		want = "M" + strconv.Itoa(n)
	}
	for _, s := range list {
		if s.Ref == want {
			return s, true
		}
	}
	c.log.Warn("model named a reference it was not given; dropped", "note", note.ID, "ref", ref)
	return shown{}, false
}

// ask sends a prompt to the model and decodes its answer into out,
// checking it with check. A malformed or truncated answer gets one
// repair turn; then ErrMalformed.
func (c *Curator) ask(ctx context.Context, p prompt, schema *amem.JSONSchema, out any, check func() error) (amem.Usage, error) {
	req := amem.LLMRequest{
		System:   strings.TrimSpace(p.system),
		Messages: []amem.Message{{Role: "user", Content: strings.TrimSpace(p.user)}},
		Schema:   schema, MaxTokens: c.opts.MaxTokens,
	}
	var usage amem.Usage
	for attempt := 0; attempt < 2; attempt++ {
		resp, err := c.complete(ctx, p.name, attempt, req)
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
		req.Messages = append(req.Messages,
			amem.Message{Role: "assistant", Content: resp.Text},
			amem.Message{Role: "user", Content: strings.TrimSpace(repairMessage(problem))})
	}
	return usage, nil // unreachable
}

// when formats an event time for a prompt: the date, which is what
// linking and temporal questions need; the zero time is "date unknown".
func when(t time.Time) string {
	if t.IsZero() {
		return "date unknown"
	}
	return t.UTC().Format("2 January 2006")
}

// clip cuts s to at most n bytes at a word boundary, marking the cut;
// n <= 0 leaves nothing.
func clip(n int, s string) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
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
