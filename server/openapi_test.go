package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIMatchesRoutes keeps the OpenAPI document and the route table
// equal both ways, so a route can't be added, removed or renamed without
// its documentation, and documents its path and query parameters (those
// the route takes, no others, arrays where they repeat) and errors.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	type param struct {
		Name, In string
		Schema   struct{ Type string }
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			Parameters []param                    `json:"parameters"`
			Responses  map[string]json.RawMessage `json:"responses"`
			Security   *[]any                     `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	s := New(nil, Options{})
	for _, r := range s.routes() {
		if !documented[r.pattern()] {
			t.Errorf("route %s is not in openapi.json", r.pattern())
			continue
		}
		delete(documented, r.pattern())
		op := doc.Paths[r.path][strings.ToLower(r.method)]
		for _, seg := range strings.Split(r.path, "/") {
			if name, ok := strings.CutPrefix(seg, "{"); ok {
				name = strings.TrimSuffix(name, "}")
				if !slices.ContainsFunc(op.Parameters, func(p param) bool {
					return p.Name == name && p.In == "path"
				}) {
					t.Errorf("%s: path parameter %s not documented", r.pattern(), name)
				}
			}
		}
		query := map[string]bool{} // documented name: repeatable
		for _, p := range op.Parameters {
			if p.In == "query" {
				query[p.Name] = p.Schema.Type == "array"
			}
		}
		for _, names := range [][]string{r.query, r.repeated} {
			for _, name := range names {
				repeated, ok := query[name]
				switch {
				case !ok:
					t.Errorf("%s: query parameter %s not documented", r.pattern(), name)
				case repeated != slices.Contains(r.repeated, name):
					t.Errorf("%s: query parameter %s: its schema must be an array exactly when it may repeat", r.pattern(), name)
				}
				delete(query, name)
			}
		}
		for name := range query {
			t.Errorf("%s: openapi.json documents query parameter %s, which the route refuses", r.pattern(), name)
		}
		if _, ok := op.Responses["400"]; !ok {
			t.Errorf("%s: response 400 (an unknown query parameter) not documented", r.pattern())
		}
		if r.public != (op.Security != nil && len(*op.Security) == 0) {
			t.Errorf("%s: public=%v but the document's security says otherwise", r.pattern(), r.public)
		}
		if !r.public {
			for _, code := range []string{"401", "403"} {
				if _, ok := op.Responses[code]; !ok {
					t.Errorf("%s: response %s not documented", r.pattern(), code)
				}
			}
		}
	}
	for extra := range documented {
		t.Errorf("openapi.json documents %s, which is not a route", extra)
	}
}
