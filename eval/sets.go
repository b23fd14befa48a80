package eval

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/amem-dev/amem/locomo"
)

// A Set is memories of one shape with the queries asked of them: what the
// suite (suite.go) ingests and scores. Each set's queries are split in
// two halves by a hash of their key (HeldOut), fixed before any tuning.
type Set struct {
	Name string
	// About says what the set is, for the report.
	About  string
	Spaces []Space
}

// Space is one namespace of a set: a LoCoMo conversation, or the whole
// of a set of agent memories.
type Space struct {
	Name    string
	Notes   []SetNote
	Queries []SetQuery
}

// SetNote is one memory.
type SetNote struct {
	Content string
	Time    time.Time
	// Units are what the note is evidence of: a turn's dia_id, the turns
	// a LoCoMo observation cites, an agent memory's own ID.
	Units []string
}

// SetQuery is one query and what answers it.
type SetQuery struct {
	// Key names the query in the set, stably: it fixes the split.
	Key  string
	Text string
	// Kind is the query's kind: a LoCoMo category's name, or an agent
	// query's kind (question, keyword, paraphrase, irrelevant).
	Kind string
	// Relevant are the units that answer it; none for a query that
	// nothing in the memory answers.
	Relevant []string
}

// HeldOut says whether a query is in the held-out half of its set: the
// FNV-1a 32-bit hash of "split:" and its key is even. Held-out queries
// are looked at only to report.
func HeldOut(key string) bool {
	h := fnv.New32a()
	h.Write([]byte("split:" + key))
	return h.Sum32()%2 == 0
}

// Kinds of agent queries (testdata/agent/LABELLING.md).
const (
	KindQuestion   = "question"
	KindKeyword    = "keyword"
	KindParaphrase = "paraphrase"
	KindIrrelevant = "irrelevant"
)

// locomoQuestions are a conversation's questions of categories 1-4 with
// evidence, the ones LoCoMo's headline figures pool.
func locomoQuestions(c locomo.Conversation) []SetQuery {
	var out []SetQuery
	for _, q := range c.QA {
		if q.Category < locomo.CategoryMultiHop || q.Category > locomo.CategorySingleHop || len(q.Evidence) == 0 {
			continue
		}
		out = append(out, SetQuery{
			Key: c.SampleID + "#" + strconv.Itoa(q.Index), Text: q.Question,
			Kind: locomo.CategoryName(q.Category), Relevant: q.Evidence,
		})
	}
	return out
}

// LoCoMoTurns is LoCoMo as `amem-eval locomo` runs it: one note per turn
// ("Speaker: text (image: caption)", dated by its session), a
// conversation per namespace; a question's evidence turns are what answer
// it.
func LoCoMoTurns(convs []locomo.Conversation) Set {
	s := Set{Name: "locomo-turns", About: "LoCoMo conversations, one note per dialogue turn; questions of categories 1-4"}
	for _, c := range convs {
		sp := Space{Name: c.SampleID, Queries: locomoQuestions(c)}
		for _, t := range c.Turns() {
			sp.Notes = append(sp.Notes, SetNote{Content: t.Content(), Time: t.Time, Units: []string{t.DiaID}})
		}
		s.Spaces = append(s.Spaces, sp)
	}
	return s
}

// LoCoMoObservations stores LoCoMo's per-session observations as the
// memories, one note per fact dated by its session: the short facts an
// agent keeps, not dialogue. A question is answered by its evidence
// turns, as in LoCoMoTurns; a fact covers the turns it cites, so a
// question's recall@k is the share of its evidence turns cited by the
// first k facts, over those that some fact cites. A question whose
// evidence no fact cites is left out.
func LoCoMoObservations(convs []locomo.Conversation) Set {
	s := Set{Name: "locomo-facts", About: "LoCoMo's session observations as memories, one note per fact; the same questions, scored by the turns the facts cite"}
	for _, c := range convs {
		sp := Space{Name: c.SampleID}
		cited := map[string]bool{}
		for _, o := range c.Observations {
			sp.Notes = append(sp.Notes, SetNote{Content: o.Text, Time: o.Time, Units: o.Cites})
			for _, id := range o.Cites {
				cited[id] = true
			}
		}
		for _, q := range locomoQuestions(c) {
			q.Relevant = slices.DeleteFunc(slices.Clone(q.Relevant), func(id string) bool { return !cited[id] })
			if len(q.Relevant) > 0 {
				sp.Queries = append(sp.Queries, q)
			}
		}
		s.Spaces = append(s.Spaces, sp)
	}
	return s
}

var (
	//go:embed testdata/agent/memories.jsonl
	agentMemoriesJSONL []byte
	//go:embed testdata/agent/queries.jsonl
	agentQueriesJSONL []byte
)

// agentEpoch dates the agent memories: one a minute from here, in file
// order, as an agent writes what it learns during its sessions.
var agentEpoch = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// AgentMemories is the hand-labelled set of everyday agent memories
// (testdata/agent: preferences, health, work, travel, schedules, people,
// decisions) with natural questions, keyword searches, paraphrases of one
// note and queries nothing answers; LABELLING.md has the rules.
func AgentMemories() (Set, error) {
	type memory struct{ ID, Text string }
	type query struct {
		ID, Query, Kind string
		Relevant        []string
	}
	mems, err := readJSONL[memory](agentMemoriesJSONL, "memories.jsonl")
	if err != nil {
		return Set{}, err
	}
	qs, err := readJSONL[query](agentQueriesJSONL, "queries.jsonl")
	if err != nil {
		return Set{}, err
	}
	sp := Space{Name: "agent"}
	ids := map[string]bool{}
	for i, m := range mems {
		if m.ID == "" || strings.TrimSpace(m.Text) == "" || ids[m.ID] {
			return Set{}, fmt.Errorf("eval: memories.jsonl line %d: an ID and a text, the ID unique", i+1)
		}
		ids[m.ID] = true
		sp.Notes = append(sp.Notes, SetNote{Content: m.Text, Time: agentEpoch.Add(time.Duration(i) * time.Minute), Units: []string{m.ID}})
	}
	for i, q := range qs {
		for _, id := range q.Relevant {
			if !ids[id] {
				return Set{}, fmt.Errorf("eval: queries.jsonl line %d (%s): relevant %s is no memory", i+1, q.ID, id)
			}
		}
		if (q.Kind == KindIrrelevant) != (len(q.Relevant) == 0) {
			return Set{}, fmt.Errorf("eval: queries.jsonl line %d (%s): a query of kind %q with %d relevant notes", i+1, q.ID, q.Kind, len(q.Relevant))
		}
		sp.Queries = append(sp.Queries, SetQuery{Key: q.ID, Text: q.Query, Kind: q.Kind, Relevant: q.Relevant})
	}
	return Set{Name: "agent", About: "everyday agent memories, hand-labelled queries (testdata/agent)", Spaces: []Space{sp}}, nil
}

// readJSONL decodes one JSON object per non-blank line, each field known.
func readJSONL[T any](data []byte, name string) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("eval: %s line %d: %w", name, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}
