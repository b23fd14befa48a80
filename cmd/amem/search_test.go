package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLISearchFilters: the filters find every matching note in every
// mode, however many better-ranked notes fail them (300 notes repeating
// "garden" and 5 tagged rare that say it once), with plain dates.
func TestCLISearchFilters(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	var lines bytes.Buffer
	enc := json.NewEncoder(&lines)
	type line struct {
		Content  string            `json:"content"`
		Time     string            `json:"time"`
		Tags     []string          `json:"tags,omitempty"`
		Metadata map[string]string `json:"metadata,omitempty"`
	}
	for i := range 300 {
		enc.Encode(line{Content: strings.Repeat("garden ", 1+i%5) + "plot", Time: "2024-01-10T00:00:00Z", Tags: []string{"common"}})
	}
	for i := range 5 {
		enc.Encode(line{Content: fmt.Sprintf("a long walk past the river and the mill to a garden, day %d", i+1),
			Time: fmt.Sprintf("2024-03-%02dT12:00:00Z", i+1), Tags: []string{"Rare"}, Metadata: map[string]string{"source": "email"}})
	}
	mustCLI(t, lines.String(), "import", "--db", db, "--namespace", "ns", "--curator", "none")

	days := func(res []result) []string {
		var out []string
		for _, r := range res {
			if d, ok := strings.CutPrefix(r.Content, "a long walk past the river and the mill to a garden, "); ok {
				out = append(out, d)
			} else {
				out = append(out, "a common note")
			}
		}
		slices.Sort(out)
		return out
	}
	all := []string{"day 1", "day 2", "day 3", "day 4", "day 5"}
	for _, mode := range []string{"lexical", "vector", "hybrid"} {
		for _, tc := range []struct {
			flags []string
			want  []string
		}{
			{[]string{"--tag", "rare"}, all},
			{[]string{"--from", "2024-03-01", "--to", "2024-03-06"}, all},
			{[]string{"--from", "2024-03-02", "--to", "2024-03-04"}, []string{"day 2", "day 3"}},
			{[]string{"--from", "2024-03-02T12:00:00Z", "--to", "2024-03-04T12:00:00Z"}, []string{"day 2", "day 3"}},
			{[]string{"--meta", "source=email"}, all},
			{[]string{"--meta", "source=email", "--tag", "rare", "--from", "2024-03-05"}, []string{"day 5"}},
			{[]string{"--meta", "source=Email"}, []string{}},
		} {
			args := append([]string{"search", "--db", db, "--namespace", "ns", "--json", "--mode", mode, "garden"}, tc.flags...)
			var res []result
			if err := json.Unmarshal([]byte(mustCLI(t, "", args...)), &res); err != nil {
				t.Fatal(err)
			}
			if got := days(res); !slices.Equal(got, tc.want) {
				t.Errorf("search --mode %s %s: %v, want %v", mode, strings.Join(tc.flags, " "), got, tc.want)
			}
		}
		// Fewer than match: the best three, all rare.
		var res []result
		out := mustCLI(t, "", "search", "--db", db, "--namespace", "ns", "--json", "--mode", mode, "--k", "3", "--tag", "RARE", "garden")
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 3 || slices.Contains(days(res), "a common note") {
			t.Errorf("search --mode %s --k 3 --tag RARE: %v %v, want 3 rare notes", mode, days(res), err)
		}
	}

	many := make([]string, 65)
	for i := range many {
		many[i] = fmt.Sprint("t", i)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--from", "yesterday"}, "from: invalid input: time \"yesterday\": use RFC 3339"},
		{[]string{"--to", "2024-03-01 12:00"}, "to: invalid input: time"},
		{[]string{"--meta", "source"}, "meta: invalid input: metadata \"source\": use KEY=VALUE"},
		{[]string{"--meta", "a=1", "--meta", "a=2"}, "given twice"},
		{[]string{"--from", "2024-03-02", "--to", "2024-03-02"}, "time range is empty"},
		{[]string{"--tag", strings.Join(many, ",")}, "the filter has 65 tags and metadata pairs; the limit is 64"},
		{[]string{"--tag", " "}, "filter tags: empty entry"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"search", "--db", db, "--namespace", "ns", "--embedder", "lexical", "garden"}, tc.args...)
		err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
		var msg bytes.Buffer
		if code := exitCode(err, &msg); code != exitUsage || !strings.Contains(msg.String(), tc.msg) {
			t.Errorf("search %s: exit %d, %q; want exit %d and %q", strings.Join(tc.args, " "), code, msg.String(), exitUsage, tc.msg)
		}
	}
}
