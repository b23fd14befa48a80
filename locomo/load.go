package locomo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Load reads a LoCoMo JSON file (such as data/locomo10.json of the
// snap-research/LoCoMo repository) and returns its conversations in file
// order. See Parse.
func Load(path string) ([]Conversation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	defer f.Close()
	convs, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return convs, nil
}

// Parse decodes LoCoMo JSON: a list of conversations
// {sample_id, conversation, qa, ...}. Fields other than sample_id,
// conversation and qa (observation, session_summary, event_summary) are
// ignored, as are the turns' img_url, query and re-download.
//
// Sessions are the conversation's session_N keys in numeric order; each must
// have a session_N_date_time that ParseDateTime understands. Question
// evidence is cleaned as documented on Question.Evidence. Errors name the
// conversation and the session or question at fault.
func Parse(r io.Reader) ([]Conversation, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var raws []json.RawMessage
	if err := dec.Decode(&raws); err != nil {
		return nil, fmt.Errorf("locomo: decode: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("locomo: decode: trailing data after the top-level list")
	}
	convs := make([]Conversation, 0, len(raws))
	for i, raw := range raws {
		c, err := parseConversation(i, raw)
		if err != nil {
			return nil, err
		}
		convs = append(convs, c)
	}
	return convs, nil
}

type rawConversation struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []json.RawMessage          `json:"qa"`
	Observation  map[string]json.RawMessage `json:"observation"`
}

type rawTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

type rawQA struct {
	Question          string          `json:"question"`
	Answer            json.RawMessage `json:"answer"`
	AdversarialAnswer json.RawMessage `json:"adversarial_answer"`
	Evidence          json.RawMessage `json:"evidence"`
	Category          json.RawMessage `json:"category"`
}

var (
	sessionKeyRE     = regexp.MustCompile(`^session_([0-9]+)$`)
	observationKeyRE = regexp.MustCompile(`^session_([0-9]+)_observation$`)
)

// parseObservations reads the "observation" object: per session_N_observation
// a map from speaker to [fact, citation] pairs, the citation a dia_id, a
// list of them or a ";"-joined string. Speakers are taken in name order
// (a JSON object has none); a session the conversation lacks, or a fact
// that cites no turn of the conversation, is left out: it can't be dated
// or scored.
func parseObservations(raw map[string]json.RawMessage, sessions []Session, ids map[string]bool) ([]Observation, error) {
	when := make(map[int]time.Time, len(sessions))
	for _, s := range sessions {
		when[s.Index] = s.DateTime
	}
	type keyed struct {
		n   int
		key string
	}
	var keys []keyed
	for key := range raw {
		m := observationKeyRE.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("observation %s: bad session number", key)
		}
		keys = append(keys, keyed{n, key})
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a].n < keys[b].n })
	var out []Observation
	for _, k := range keys {
		t, ok := when[k.n]
		if !ok {
			continue
		}
		var bySpeaker map[string][]json.RawMessage
		if err := unmarshal(raw[k.key], &bySpeaker); err != nil {
			return nil, fmt.Errorf("observation %s: %w", k.key, err)
		}
		speakers := make([]string, 0, len(bySpeaker))
		for sp := range bySpeaker {
			speakers = append(speakers, sp)
		}
		sort.Strings(speakers)
		for _, sp := range speakers {
			for i, f := range bySpeaker[sp] {
				var pair []json.RawMessage
				if err := unmarshal(f, &pair); err != nil || len(pair) != 2 {
					return nil, fmt.Errorf("observation %s %s[%d]: not a [fact, citation] pair", k.key, sp, i)
				}
				var text string
				if err := unmarshal(pair[0], &text); err != nil {
					return nil, fmt.Errorf("observation %s %s[%d]: fact: %w", k.key, sp, i, err)
				}
				cites, err := cleanEvidence(pair[1], ids)
				if err != nil {
					return nil, fmt.Errorf("observation %s %s[%d]: citation: %w", k.key, sp, i, err)
				}
				text = strings.TrimSpace(text)
				if text == "" || len(cites) == 0 {
					continue
				}
				out = append(out, Observation{Session: k.n, Speaker: sp, Text: text, Cites: cites, Time: t})
			}
		}
	}
	return out, nil
}

func parseConversation(i int, raw json.RawMessage) (Conversation, error) {
	var rc rawConversation
	if err := unmarshal(raw, &rc); err != nil {
		return Conversation{}, fmt.Errorf("locomo: conversation #%d: %w", i, err)
	}
	name := rc.SampleID
	if name == "" {
		name = fmt.Sprintf("#%d", i)
	}
	errf := func(format string, args ...any) error {
		return fmt.Errorf("locomo: conversation %s: "+format, append([]any{name}, args...)...)
	}
	if rc.Conversation == nil {
		return Conversation{}, errf("no \"conversation\" object")
	}
	c := Conversation{SampleID: rc.SampleID}
	for key, dst := range map[string]*string{"speaker_a": &c.SpeakerA, "speaker_b": &c.SpeakerB} {
		if v, ok := rc.Conversation[key]; ok {
			if err := unmarshal(v, dst); err != nil {
				return Conversation{}, errf("%s: %w", key, err)
			}
		}
	}

	// Sessions, in numeric order of N.
	type keyed struct {
		n   int
		key string
	}
	var keys []keyed
	for key := range rc.Conversation {
		m := sessionKeyRE.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return Conversation{}, errf("%s: bad session number", key)
		}
		keys = append(keys, keyed{n, key})
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].n != keys[b].n {
			return keys[a].n < keys[b].n
		}
		return keys[a].key < keys[b].key
	})
	ids := make(map[string]bool)
	for j, k := range keys {
		if j > 0 && keys[j-1].n == k.n {
			return Conversation{}, errf("%s and %s are the same session", keys[j-1].key, k.key)
		}
		var turns []rawTurn
		if err := unmarshal(rc.Conversation[k.key], &turns); err != nil {
			return Conversation{}, errf("%s: %w", k.key, err)
		}
		dtKey := k.key + "_date_time"
		rawDT, ok := rc.Conversation[dtKey]
		if !ok {
			return Conversation{}, errf("%s: missing %s", k.key, dtKey)
		}
		var dtText string
		if err := unmarshal(rawDT, &dtText); err != nil {
			return Conversation{}, errf("%s: %w", dtKey, err)
		}
		dt, err := ParseDateTime(dtText)
		if err != nil {
			return Conversation{}, errf("%s: %w", k.key, err)
		}
		s := Session{Index: k.n, DateTime: dt, RawDateTime: dtText, Turns: make([]Turn, 0, len(turns))}
		for _, t := range turns {
			s.Turns = append(s.Turns, Turn{
				DiaID:        t.DiaID,
				Speaker:      t.Speaker,
				Text:         t.Text,
				ImageCaption: t.BlipCaption,
				Session:      k.n,
				Time:         dt,
			})
			ids[t.DiaID] = true
		}
		c.Sessions = append(c.Sessions, s)
	}

	obs, err := parseObservations(rc.Observation, c.Sessions, ids)
	if err != nil {
		return Conversation{}, errf("%w", err)
	}
	c.Observations = obs

	c.QA = make([]Question, 0, len(rc.QA))
	for j, raw := range rc.QA {
		q, err := parseQuestion(j, raw, ids)
		if err != nil {
			return Conversation{}, errf("qa[%d]: %w", j, err)
		}
		c.QA = append(c.QA, q)
	}
	return c, nil
}

func parseQuestion(index int, raw json.RawMessage, ids map[string]bool) (Question, error) {
	var rq rawQA
	if err := unmarshal(raw, &rq); err != nil {
		return Question{}, err
	}
	q := Question{Index: index, Question: rq.Question}
	var err error
	if q.Answer, err = answerText(rq.Answer); err != nil {
		return Question{}, fmt.Errorf("answer: %w", err)
	}
	if q.AdversarialAnswer, err = answerText(rq.AdversarialAnswer); err != nil {
		return Question{}, fmt.Errorf("adversarial_answer: %w", err)
	}
	if q.Category, err = categoryNumber(rq.Category); err != nil {
		return Question{}, fmt.Errorf("category: %w", err)
	}
	if q.Evidence, err = cleanEvidence(rq.Evidence, ids); err != nil {
		return Question{}, fmt.Errorf("evidence: %w", err)
	}
	return q, nil
}

// unmarshal decodes with numbers kept as json.Number.
func unmarshal(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// answerText turns a JSON answer value into text: a string as is, a number
// as its literal, a boolean as "true"/"false", a list as its elements'
// texts joined with ", ", null or absent as "".
func answerText(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var v any
	if err := unmarshal(raw, &v); err != nil {
		return "", err
	}
	return valueText(v)
}

func valueText(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, err := valueText(e)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", "), nil
	}
	return "", fmt.Errorf("unsupported answer value %T", v)
}

// categoryNumber accepts an integral JSON number or a string holding one.
func categoryNumber(raw json.RawMessage) (int, error) {
	if isNull(raw) {
		return 0, errors.New("missing")
	}
	var v any
	if err := unmarshal(raw, &v); err != nil {
		return 0, err
	}
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default:
		return 0, fmt.Errorf("not a number: %s", bytes.TrimSpace(raw))
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, fmt.Errorf("not an integer: %q", s)
	}
	return int(f), nil
}

var diaIDRE = regexp.MustCompile(`^[Dd]:?0*([0-9]+):0*([0-9]+)$`)

// cleanEvidence splits evidence entries on ';', ',' and whitespace, keeps the
// ids present in the conversation (trying the canonical form "D<s>:<t>" for
// near-misses such as "d1:03" or "D:1:3"), and removes duplicates.
func cleanEvidence(raw json.RawMessage, ids map[string]bool) ([]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var v any
	if err := unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var entries []string
	switch x := v.(type) {
	case string:
		entries = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("entry is %T, not a string", e)
			}
			entries = append(entries, s)
		}
	default:
		return nil, fmt.Errorf("not a list of strings: %T", v)
	}
	var out []string
	seen := make(map[string]bool)
	for _, e := range entries {
		for _, id := range strings.FieldsFunc(e, func(r rune) bool {
			return r == ';' || r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
		}) {
			if !ids[id] {
				m := diaIDRE.FindStringSubmatch(id)
				if m == nil {
					continue
				}
				id = "D" + m[1] + ":" + m[2]
				if !ids[id] {
					continue
				}
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out, nil
}

var monthNames = map[string]time.Month{
	"january": time.January, "jan": time.January,
	"february": time.February, "feb": time.February,
	"march": time.March, "mar": time.March,
	"april": time.April, "apr": time.April,
	"may":  time.May,
	"june": time.June, "jun": time.June,
	"july": time.July, "jul": time.July,
	"august": time.August, "aug": time.August,
	"september": time.September, "sep": time.September, "sept": time.September,
	"october": time.October, "oct": time.October,
	"november": time.November, "nov": time.November,
	"december": time.December, "dec": time.December,
}

var (
	clockRE = regexp.MustCompile(`^([0-9]{1,2})(?:[:.]([0-9]{2}))?(?::([0-9]{2}))?(am|pm)?$`)
	dayRE   = regexp.MustCompile(`^([0-9]{1,2})(?:st|nd|rd|th)?$`)
	yearRE  = regexp.MustCompile(`^[0-9]{4}$`)
)

// ParseDateTime parses a LoCoMo session date such as "1:56 pm on 8 May, 2023"
// into a UTC time. It is tolerant of variations: case, commas, the words
// "on", "at" and "of", "a.m."/"p.m." or am/pm attached to the clock
// ("1:56pm"), a 24-hour clock without am/pm, ordinal days ("8th"), full or
// three-letter month names, day and month in either order ("May 8, 2023"),
// and a missing clock (midnight). ISO forms ("2023-05-08", "2023-05-08
// 13:56", RFC 3339) are accepted too. A day, month and year are required.
func ParseDateTime(s string) (time.Time, error) {
	orig := s
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	bad := func(why string) (time.Time, error) {
		return time.Time{}, fmt.Errorf("cannot parse date %q: %s", orig, why)
	}
	s = strings.ToLower(s)
	s = strings.NewReplacer("a.m.", "am", "p.m.", "pm", "a.m", "am", "p.m", "pm", ",", " ").Replace(s)
	hour, minute, sec := -1, 0, 0
	day, year := 0, 0
	var month time.Month
	ampm := ""
	setAMPM := func(v string) bool {
		if ampm != "" {
			return false
		}
		ampm = v
		return true
	}
	fields := strings.Fields(s)
	for i, f := range fields {
		// A bare hour before am/pm ("9 am") is a clock time, not a day.
		hourOnly := i+1 < len(fields) && (fields[i+1] == "am" || fields[i+1] == "pm") && !strings.ContainsAny(f, "apm")
		switch {
		case f == "on" || f == "at" || f == "of" || f == "-":
		case f == "am" || f == "pm":
			if !setAMPM(f) {
				return bad("am/pm given twice")
			}
		case monthNames[strings.TrimSuffix(f, ".")] != 0:
			if month != 0 {
				return bad("two months")
			}
			month = monthNames[strings.TrimSuffix(f, ".")]
		case yearRE.MatchString(f):
			if year != 0 {
				return bad("two years")
			}
			year, _ = strconv.Atoi(f)
		case dayRE.MatchString(f) && !hourOnly:
			if day != 0 {
				return bad("two days")
			}
			day, _ = strconv.Atoi(dayRE.FindStringSubmatch(f)[1])
		case clockRE.MatchString(f) && (hourOnly || strings.ContainsAny(f, ":.") || strings.HasSuffix(f, "m")):
			if hour >= 0 {
				return bad("two clock times")
			}
			m := clockRE.FindStringSubmatch(f)
			hour, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				minute, _ = strconv.Atoi(m[2])
			}
			if m[3] != "" {
				sec, _ = strconv.Atoi(m[3])
			}
			if m[4] != "" && !setAMPM(m[4]) {
				return bad("am/pm given twice")
			}
		default:
			return bad(fmt.Sprintf("unexpected %q", f))
		}
	}
	switch {
	case day == 0:
		return bad("no day")
	case month == 0:
		return bad("no month")
	case year == 0:
		return bad("no year")
	}
	if hour < 0 {
		if ampm != "" {
			return bad("am/pm without a clock time")
		}
		hour = 0
	}
	if minute > 59 || sec > 59 {
		return bad("minutes or seconds out of range")
	}
	switch ampm {
	case "":
		if hour > 23 {
			return bad("hour out of range")
		}
	default:
		if hour < 1 || hour > 12 {
			return bad("hour out of range for a 12-hour clock")
		}
		if hour == 12 {
			hour = 0
		}
		if ampm == "pm" {
			hour += 12
		}
	}
	t := time.Date(year, month, day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day || t.Month() != month {
		return bad("no such day")
	}
	return t, nil
}
