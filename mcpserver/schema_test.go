package mcpserver_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/amem-dev/amem/mcpserver/mcptest"
)

// TestTypeUnionsFindsNestedOnes: the check every transport's tool list
// goes through (mcptest.TypeUnions) sees a union however deep it is, so
// that a new nested argument can't bring one back unseen.
func TestTypeUnionsFindsNestedOnes(t *testing.T) {
	var schema any
	err := json.Unmarshal([]byte(`{"type": "object", "properties": {
		"tags": {"type": "array", "items": {"type": ["null", "string"]}},
		"meta": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
		"type": {"type": "string"},
		"ok": {"anyOf": [{"type": "null"}, {"type": ["array", "null"]}]}}}`), &schema)
	if err != nil {
		t.Fatal(err)
	}
	got := mcptest.TypeUnions("in", schema)
	want := []string{
		"in.properties.meta.additionalProperties has the types [string number]",
		"in.properties.ok.anyOf[1] has the types [array null]",
		"in.properties.tags.items has the types [null string]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("TypeUnions:\n%q\nwant\n%q", got, want)
	}
}
