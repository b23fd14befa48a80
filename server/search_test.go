package server

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/jsonin"
	"github.com/amem-dev/amem/wire"
)

// TestSearchFilters: the filters find every matching note in every mode,
// however many better-ranked notes fail them (300 notes repeating
// "garden", 5 tagged rare that say it once), with plain dates and meta=.
func TestSearchFilters(t *testing.T) {
	e := newEnvCurator(t, Options{}, nil) // a curator would tag notes itself
	key, _ := e.key("f")
	const base = "/v1/namespaces/f"
	var notes []noteInput
	for i := range 300 {
		notes = append(notes, noteInput{Content: strings.Repeat("garden ", 1+i%5) + "plot", Tags: []string{"common"}})
	}
	for i := range 5 {
		at := jsonin.Time{Time: mustTime(t, fmt.Sprintf("2024-03-%02dT12:00:00Z", i+1))}
		notes = append(notes, noteInput{Content: fmt.Sprintf("a long walk past the river and the mill to a garden, day %d", i+1),
			Time: &at, Tags: []string{"Rare"}, Metadata: map[string]string{"source": "email"}})
	}
	e.must(201, "POST", base+"/notes/batch", key, batchInput{Notes: notes}, nil)

	search := func(q url.Values) []string {
		t.Helper()
		var out wire.ResultList
		e.must(200, "GET", base+"/search?"+q.Encode(), key, nil, &out)
		var days []string
		for _, r := range out.Results {
			if d, ok := strings.CutPrefix(r.Content, "a long walk past the river and the mill to a garden, "); ok {
				days = append(days, d)
			} else {
				days = append(days, "a common note")
			}
		}
		slices.Sort(days)
		return days
	}
	all := []string{"day 1", "day 2", "day 3", "day 4", "day 5"}
	for _, mode := range []string{"lexical", "vector", "hybrid"} {
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"tag=rare", all},
			{"from=2024-03-01&to=2024-03-06", all},
			{"from=2024-03-02&to=2024-03-04", []string{"day 2", "day 3"}},
			{"from=2024-03-02T12:00:00Z&to=2024-03-04T12:00:00%2B00:00", []string{"day 2", "day 3"}},
			{"meta=source=email", all},
			{"meta=source%3Demail&tag=rare&from=2024-03-05", []string{"day 5"}},
			{"meta=source=Email", nil},
			{"tag=rare&links=false", all},
		} {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			q.Set("q", "garden")
			q.Set("mode", mode)
			if got := search(q); !slices.Equal(got, tc.want) {
				t.Errorf("mode=%s&%s: %v, want %v", mode, tc.query, got, tc.want)
			}
		}
		// Fewer than match: the best three, all rare.
		if got := search(url.Values{"q": {"garden"}, "mode": {mode}, "tag": {"RARE"}, "k": {"3"}}); len(got) != 3 || slices.Contains(got, "a common note") {
			t.Errorf("mode=%s&tag=RARE&k=3: %v, want three rare notes", mode, got)
		}
	}

	many := func(name string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "&%s=t%d", name, i)
			if name == "meta" {
				b.WriteString("=v")
			}
		}
		return b.String()
	}
	for _, c := range []struct{ query, detail string }{
		{"from=yesterday", `from: invalid input: time "yesterday": use RFC 3339`},
		{"to=2024-03-01+12:00", "to: invalid input: time"},
		{"meta=source", `meta: invalid input: metadata "source": use KEY=VALUE`},
		{"meta=a=1&meta=a=2", `metadata key "a" is given twice`},
		{"tag=", "filter tags: empty entry"},
		{"from=2024-03-02&to=2024-03-01", "time range is empty"},
		{strings.TrimPrefix(many("tag", 935), "&"), "the filter has 935 tags and metadata pairs; the limit is 64"},
		{strings.TrimPrefix(many("tag", 33)+many("meta", 32), "&"), "the filter has 65 tags"},
		{"k=3&k=4", `query parameter "k" is given 2 times`},
		{"colour=red", `unknown query parameter "colour": GET /v1/namespaces/{ns}/search takes q, k, mode, profile, min_score, links, from, to, tag_source, as_of, exclude_superseded, tag, meta`},
		{"min_score=1.5", `min_score="1.5" must be a number from 0 to 1`},
		{"min_score=high", `min_score="high" must be a number from 0 to 1`},
		{"profile=chat", `profile="chat" must be auto, general or conversation`},
		{"Tag=rare", `unknown query parameter "Tag"`},
		{"tag=%zz", "malformed"},
	} {
		got, raw := e.do("GET", base+"/search?q=garden&"+c.query, key, nil, nil)
		var p Problem
		if err := json.Unmarshal(raw, &p); got != 400 || err != nil || !strings.Contains(p.Detail, c.detail) {
			t.Errorf("search?q=garden&%.80s: %d %s, want 400 and %q", c.query, got, raw, c.detail)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := amem.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}
