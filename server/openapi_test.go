package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amem-dev/amem/webhook"
	"github.com/amem-dev/amem/wire"
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

// schema is the part of a JSON schema that names properties.
type schema struct {
	Ref        string             `json:"$ref"`
	Required   []string           `json:"required"`
	Properties map[string]*schema `json:"properties"`
	Items      *schema            `json:"items"`
}

// TestOpenAPIMatchesWire keeps the documented answers equal to what
// package wire writes: the same properties both ways, nested ones
// included, and no property documented as required that wire leaves out
// when empty. A field added to a wire type must be documented.
func TestOpenAPIMatchesWire(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	all := doc.Components.Schemas
	for name, typ := range map[string]reflect.Type{
		"Note":           reflect.TypeFor[wire.Note](),
		"NotePage":       reflect.TypeFor[wire.NotePage](),
		"Neighbor":       reflect.TypeFor[wire.Neighbor](),
		"Version":        reflect.TypeFor[wire.Version](),
		"SearchResult":   reflect.TypeFor[wire.Result](),
		"NamespaceInfo":  reflect.TypeFor[wire.NamespaceInfo](),
		"Stats":          reflect.TypeFor[wire.Stats](),
		"UsageTotal":     reflect.TypeFor[wire.UsageTotal](),
		"KeyInfo":        reflect.TypeFor[keyInfo](),
		"Trashed":        reflect.TypeFor[wire.Trashed](),
		"TrashPage":      reflect.TypeFor[wire.TrashPage](),
		"Purged":         reflect.TypeFor[wire.Purged](),
		"Retention":      reflect.TypeFor[wire.Retention](),
		"RetentionInput": reflect.TypeFor[wire.RetentionInput](),
		"LinkPage":       reflect.TypeFor[linkPage](),
		"CreatedWebhook": reflect.TypeFor[createdWebhook](),
		"WebhookStatus":  reflect.TypeFor[webhook.Status](),
		"WebhookInput":   reflect.TypeFor[webhook.Input](),
		"WebhookEvent":   reflect.TypeFor[webhook.Payload](),
	} {
		if all[name] == nil {
			t.Errorf("openapi.json has no schema %s", name)
			continue
		}
		matchSchema(t, name, all, all[name], typ)
	}
}

func matchSchema(t *testing.T, path string, all map[string]*schema, s *schema, typ reflect.Type) {
	t.Helper()
	if ref, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
		s = all[ref]
	}
	switch {
	case typ.Kind() == reflect.Slice && s.Items != nil:
		matchSchema(t, path+"[]", all, s.Items, typ.Elem())
		return
	case typ.Kind() != reflect.Struct || typ == reflect.TypeFor[time.Time]() || s.Properties == nil:
		return // documented without properties
	}
	omitted := map[string]bool{} // JSON name: left out when empty
	for _, f := range reflect.VisibleFields(typ) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue // never written (a webhook's secret)
		}
		omitted[name] = strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		p, ok := s.Properties[name]
		if !ok {
			t.Errorf("%s.%s: wire writes it; document it in openapi.json", path, name)
			continue
		}
		matchSchema(t, path+"."+name, all, p, f.Type)
	}
	for name := range s.Properties {
		if _, ok := omitted[name]; !ok {
			t.Errorf("%s.%s is documented in openapi.json; wire never writes it", path, name)
		}
	}
	for _, name := range s.Required {
		if omitted[name] {
			t.Errorf("%s.%s is documented as required; wire leaves it out when empty", path, name)
		}
	}
}

// TestOpenAPIOperations checks what the clients are generated from by
// hand: every operation has an operationId (the clients' method names),
// unique across the document, and every error answer is documented as
// problem+json, which is what the clients' exceptions carry.
func TestOpenAPIOperations(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string                     `json:"operationId"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
		Components struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			where := strings.ToUpper(method) + " " + path
			switch prev, dup := seen[op.OperationID]; {
			case op.OperationID == "":
				t.Errorf("%s has no operationId", where)
			case dup:
				t.Errorf("%s and %s share operationId %s", where, prev, op.OperationID)
			}
			seen[op.OperationID] = where
			for code, raw := range op.Responses {
				if code < "400" {
					continue
				}
				if !isProblem(raw, doc.Components.Responses) {
					t.Errorf("%s: response %s is not application/problem+json with the Problem schema", where, code)
				}
			}
		}
	}
}

// isProblem reports whether a response, or the components response it
// refers to, is application/problem+json with the Problem schema.
func isProblem(raw json.RawMessage, shared map[string]json.RawMessage) bool {
	var r struct {
		Ref     string `json:"$ref"`
		Content map[string]struct {
			Schema struct {
				Ref string `json:"$ref"`
			} `json:"schema"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	if name, ok := strings.CutPrefix(r.Ref, "#/components/responses/"); ok {
		return shared[name] != nil && isProblem(shared[name], nil)
	}
	c, ok := r.Content["application/problem+json"]
	return ok && len(r.Content) == 1 && c.Schema.Ref == "#/components/schemas/Problem"
}
