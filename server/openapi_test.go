package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIMatchesRoutes keeps the OpenAPI document and the route table
// equal both ways, so a route can't be added, removed or renamed without
// its documentation, and documents its path parameters and errors.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			Parameters []struct {
				Name, In string
			} `json:"parameters"`
			Responses map[string]json.RawMessage `json:"responses"`
			Security  *[]any                     `json:"security"`
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
				if !slices.ContainsFunc(op.Parameters, func(p struct{ Name, In string }) bool {
					return p.Name == name && p.In == "path"
				}) {
					t.Errorf("%s: path parameter %s not documented", r.pattern(), name)
				}
			}
		}
		if r.public != (op.Security != nil && len(*op.Security) == 0) {
			t.Errorf("%s: public=%v but the document's security says otherwise", r.pattern(), r.public)
		}
		if !r.public {
			for _, code := range []string{"400", "401", "403"} {
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
