package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/jsonin"
)

// mem0Record is one memory as Mem0 returns it from get_all, get and
// search (open source and platform alike). Fields it may add are
// ignored: a later Mem0 must not make its exports unreadable.
type mem0Record struct {
	ID         string         `json:"id"`
	Memory     *string        `json:"memory"`
	Hash       string         `json:"hash"`
	Metadata   map[string]any `json:"metadata"`
	Categories []string       `json:"categories"`
	CreatedAt  *string        `json:"created_at"`
	UpdatedAt  *string        `json:"updated_at"`
	UserID     string         `json:"user_id"`
	AgentID    string         `json:"agent_id"`
	RunID      string         `json:"run_id"`
	AppID      string         `json:"app_id"`
}

// mem0Pieces reads a Mem0 export in any of its containers: a JSON array
// of memories, an object whose "results" is that array (get_all's
// answer, paged or not), one memory object, or JSON lines of memories.
// Each memory becomes one plain import line; a record it can't read is
// listed in bad, with the others, rather than stopping it.
func mem0Pieces(data []byte, forcedNS, defaultNS string) ([]piece, *badInput, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := jsonin.Check(data, "the file"); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", amem.ErrInvalid, err)
	}
	raws, unit, err := mem0Records(data)
	if err != nil {
		return nil, nil, err
	}
	bad := &badInput{unit: unit}
	var out []piece
	for _, r := range raws {
		if r.err != nil {
			bad.add(r.pos, "", r.err)
			continue
		}
		var rec mem0Record
		if err := json.Unmarshal(r.data, &rec); err != nil {
			bad.add(r.pos, "", fmt.Errorf("not a Mem0 memory: %v", err))
			continue
		}
		p, err := rec.piece(forcedNS, defaultNS)
		if err != nil {
			bad.add(r.pos, rec.ID, err)
			continue
		}
		p.pos, p.ref = r.pos, rec.ID
		out = append(out, p)
	}
	return out, bad, nil
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// rawRecord is one record of a Mem0 file: its JSON or why it could not
// be read, and its position (a line of JSON lines, else its number).
type rawRecord struct {
	pos  int
	data json.RawMessage
	err  error
}

// mem0Records splits the file into records, and says what their
// positions count: "line" for JSON lines, else "record".
func mem0Records(data []byte) ([]rawRecord, string, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, "", fmt.Errorf("%w: the file is empty; want a Mem0 export (JSON array, {\"results\": [...]} or JSON lines)", amem.ErrInvalid)
	}
	if trimmed[0] != '[' && trimmed[0] != '{' {
		return nil, "", fmt.Errorf("%w: the file is not a Mem0 export (a JSON array, {\"results\": [...]} or JSON lines)", amem.ErrInvalid)
	}
	var doc json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	err := dec.Decode(&doc)
	if trimmed[0] == '{' && (err != nil || dec.More()) {
		// Not one object: JSON lines, each read (or refused) alone.
		return jsonLines(data), "line", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: the file is not JSON: %s", amem.ErrInvalid, syntaxAt(trimmed, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, "", fmt.Errorf("%w: the file holds more after its JSON array", amem.ErrInvalid)
	}
	var list []json.RawMessage
	switch trimmed[0] {
	case '[':
		if err := json.Unmarshal(doc, &list); err != nil {
			return nil, "", fmt.Errorf("%w: %v", amem.ErrInvalid, err)
		}
	case '{':
		var wrapper struct {
			Results *[]json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(doc, &wrapper); err != nil {
			return nil, "", fmt.Errorf("%w: \"results\" is not a list of memories: %v", amem.ErrInvalid, err)
		}
		if wrapper.Results == nil {
			list = []json.RawMessage{doc} // one memory, as get returns it
		} else {
			list = *wrapper.Results
		}
	}
	out := make([]rawRecord, len(list))
	for i, r := range list {
		out[i] = rawRecord{pos: i + 1, data: r}
		if bytes.HasPrefix(bytes.TrimSpace(r), []byte("{")) {
			continue
		}
		out[i].err = errors.New("not a JSON object")
	}
	return out, "record", nil
}

// jsonLines splits JSON lines into records numbered by line, skipping
// blank lines.
func jsonLines(data []byte) []rawRecord {
	var out []rawRecord
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		r := rawRecord{pos: i + 1, data: line}
		if !json.Valid(line) {
			var v any
			r.err = fmt.Errorf("not JSON: %s", syntaxAt(line, json.Unmarshal(line, &v)))
		} else if line[0] != '{' {
			r.err = errors.New("not a JSON object")
		}
		out = append(out, r)
	}
	return out
}

// syntaxAt words a JSON error with the line and column it points at.
func syntaxAt(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return "it ends in the middle of a value"
		}
		return err.Error()
	}
	before := data[:min(int(se.Offset), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%v (line %d, column %d)", se, line, col)
}

// piece makes the record an import line. The namespace is forcedNS if
// given, else the first of the user, agent and run IDs (made a valid
// namespace), else defaultNS. Mem0's IDs and hash are kept in the
// metadata, beside Mem0's own metadata (prefixed mem0_, so that they
// never replace it).
func (r mem0Record) piece(forcedNS, defaultNS string) (piece, error) {
	if r.Memory == nil {
		return piece{}, errors.New(`no "memory" text`)
	}
	p := piece{line: plainImport{Content: *r.Memory, Tags: r.Categories}}
	p.line.Namespace = forcedNS
	if p.line.Namespace == "" {
		p.line.Namespace = defaultNS
		for _, id := range []string{r.UserID, r.AgentID, r.RunID} {
			if id != "" {
				p.line.Namespace = namespaceOf(id)
				break
			}
		}
	}
	if r.CreatedAt != nil && *r.CreatedAt != "" {
		t, err := parseMem0Time(*r.CreatedAt)
		if err != nil {
			return piece{}, fmt.Errorf("created_at: %w", err)
		}
		p.line.Time = t.Format(time.RFC3339Nano)
	}
	md, err := mem0Metadata(r.Metadata)
	if err != nil {
		return piece{}, err
	}
	for k, v := range map[string]string{
		"mem0_id": r.ID, "mem0_hash": r.Hash, "mem0_user_id": r.UserID,
		"mem0_agent_id": r.AgentID, "mem0_run_id": r.RunID, "mem0_app_id": r.AppID,
	} {
		if v != "" {
			md[k] = v
		}
	}
	if r.UpdatedAt != nil && *r.UpdatedAt != "" {
		md["mem0_updated_at"] = *r.UpdatedAt
	}
	p.line.Metadata = md
	return p, nil
}

// mem0Metadata makes Mem0's metadata, whose values are any JSON, amem's
// string pairs: a string stays as it is, anything else is its JSON text,
// and null is left out.
func mem0Metadata(in map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(in)+8)
	for k, v := range in {
		switch v := v.(type) {
		case nil:
		case string:
			out[k] = v
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("metadata %q: %w", k, err)
			}
			out[k] = string(b)
		}
	}
	return out, nil
}

// mem0TimeLayouts are the times Mem0 writes: Python's isoformat, with or
// without microseconds and offset (the open-source Memory writes
// US/Pacific times with an offset), and with a space for the T as str()
// writes it.
var mem0TimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999",
	time.DateOnly,
}

// parseMem0Time reads a Mem0 time; one without an offset is UTC.
func parseMem0Time(s string) (time.Time, error) {
	for _, layout := range mem0TimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: want ISO 8601, as 2024-07-20T01:30:36.275141-07:00", s)
}

// namespaceOf makes a Mem0 ID a namespace: every character a namespace
// can't hold becomes "_", and it is cut to the longest namespace. Two IDs
// that differ only there share a namespace; the note's metadata keeps the
// ID as it was.
func namespaceOf(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:@", r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() == amem.MaxNamespaceLen {
			break
		}
	}
	return b.String()
}
