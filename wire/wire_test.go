package wire_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the wire types")

// shape is one golden case: a wire value built from a fully populated
// domain value, and one built from a zero domain value, which shows the
// fields that are left out when empty and the lists that are null.
type shape struct {
	name       string
	full, zero any
}

func shapes() []shape {
	zeroNote := wire.NoteOf(amem.Note{})
	return []shape{
		{"note", wire.NoteOf(fullNote()), zeroNote},
		{"link", wire.LinkOf(fullLink()), wire.LinkOf(amem.Link{})},
		{"enrichment", wire.EnrichmentOf(fullNote().Enrichment), wire.EnrichmentOf(amem.Enrichment{})},
		{"result", wire.ResultOf(fullResult()), wire.ResultOf(amem.Result{})},
		{"neighbor", wire.NeighborOf(fullNeighbor()), wire.NeighborOf(amem.Neighbor{})},
		{"version", wire.VersionOf(fullVersion()), wire.VersionOf(amem.Version{})},
		{"usage_total", wire.UsageTotalOf(fullUsageTotal()), wire.UsageTotalOf(amem.UsageTotal{})},
		{"stats", wire.StatsOf(fullStats()), wire.StatsOf(amem.Stats{})},
		{"namespace_info", wire.NamespaceInfoOf(fullNamespaceInfo()), wire.NamespaceInfoOf(amem.NamespaceInfo{})},
		{"note_page", wire.NotePage{Notes: []wire.Note{wire.NoteOf(fullNote())}, Next: noteID}, wire.NotePage{}},
		{"result_list", wire.ResultList{Results: []wire.Result{wire.ResultOf(fullResult())}}, nil},
		{"neighbor_list", wire.NeighborList{Links: []wire.Neighbor{wire.NeighborOf(fullNeighbor())}}, nil},
		{"version_list", wire.VersionList{Versions: []wire.Version{wire.VersionOf(fullVersion())}}, nil},
		{"usage_list", wire.UsageList{Usage: []wire.UsageTotal{wire.UsageTotalOf(fullUsageTotal())}}, nil},
		{"namespace_list", wire.NamespaceList{Namespaces: []wire.NamespaceInfo{wire.NamespaceInfoOf(fullNamespaceInfo())}}, nil},
		{"deleted", wire.Deleted{Deleted: noteID}, nil},
		{"trashed", wire.TrashedOf(fullTrashed(), 30*24*time.Hour), wire.TrashedOf(amem.Trashed{}, 0)},
		{"trash_page", wire.TrashPage{Notes: []wire.Trashed{wire.TrashedOf(fullTrashed(), 30*24*time.Hour)}, Next: noteID}, wire.TrashPage{}},
		{"purged", wire.Purged{Purged: 3}, nil},
		{"retention", wire.RetentionOf("demo", fullStats().Retention, fullStats().RetentionDue), wire.RetentionOf("", amem.Retention{}, amem.RetentionDue{})},
		{"note_detail", wire.NoteDetailOf(fullNote(), true, []amem.UsageTotal{fullUsageTotal()}),
			wire.NoteDetailOf(amem.Note{}, true, nil)},
		{"linked_note", wire.LinkedNoteOf(noteID, fullNeighbor()), wire.LinkedNoteOf(noteID, amem.Neighbor{})},
		{"namespace_summary", wire.NamespaceSummaryOf(fullNamespaceInfo(), 3), wire.NamespaceSummaryOf(amem.NamespaceInfo{}, 0)},
	}
}

// TestGolden pins every public shape: field names, order, and which
// fields are left out when empty. The files were first written from the
// JSON the API and the CLI gave before this package existed; a diff here
// is a change every client sees.
func TestGolden(t *testing.T) {
	for _, s := range shapes() {
		golden(t, s.name, s.full)
		if s.zero != nil {
			golden(t, s.name+".zero", s.zero)
		}
	}
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./wire -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the JSON changed; clients see it. Got:\n%s\nwant (%s):\n%s", name, got, path, want)
	}
}

// TestFullyPopulated makes the golden files show every field: each domain
// fixture sets every field, and each converter fills every wire field
// from it, so a field a converter forgets to copy shows up here.
func TestFullyPopulated(t *testing.T) {
	for _, v := range []any{fullNote(), fullResult(), fullNeighbor(), fullVersion(), fullUsageTotal(),
		fullStats(), fullNamespaceInfo()} {
		if u := unset(fmt.Sprintf("%T", v), reflect.ValueOf(v)); len(u) > 0 {
			t.Errorf("the fixture leaves %v unset; set it in fixture_test.go", u)
		}
	}
	for _, s := range shapes() {
		if u := unset(s.name, reflect.ValueOf(s.full)); len(u) > 0 {
			t.Errorf("%s leaves %v unset: does its converter copy it?", s.name, u)
		}
	}
}

// unset lists the zero or empty fields in v, looking into structs, list
// elements and map values.
func unset(path string, v reflect.Value) []string {
	if v.IsZero() || (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.Len() == 0 {
		return []string{path}
	}
	var out []string
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return nil
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				out = append(out, unset(path+"."+f.Name, v.Field(i))...)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = append(out, unset(fmt.Sprintf("%s[%d]", path, i), v.Index(i))...)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			out = append(out, unset(fmt.Sprintf("%s[%v]", path, it.Key()), it.Value())...)
		}
	}
	return out
}

// shown means a wire type carries the field.
const shown = ""

// decisions says, for each domain type a wire type is made from, what
// becomes of each of its fields (promoted fields of embedded structs
// included): shown, or why not. A field added to the domain fails
// TestEveryFieldDecided until it is listed here, and shown only if a
// wire type and its converter carry it too.
var decisions = []struct {
	domain any
	in     string // the wire type that decides
	fields map[string]string
}{
	{amem.Note{}, "Note", map[string]string{
		"ID": shown, "Namespace": shown, "Content": shown, "EventTime": shown, "IngestTime": shown,
		"UpdatedAt": shown, "Keywords": shown, "Tags": shown, "CuratorTags": shown, "Context": shown,
		"CallerKeywords": shown, "CallerContext": shown, // as caller_set
		"Metadata": shown, "Links": shown, "Version": shown, "Enrichment": shown,
		"ValidUntil": shown, "SupersededBy": shown, "CallerValidity": shown,
		"Embedding": "large, and meaningful only to the embedder that made it; only amem show --embedding prints it (NoteDetail)",
	}},
	{amem.Link{}, "Link", map[string]string{
		"Source": shown, "Target": shown, "Reason": shown, "Strength": shown, "CreatedAt": shown, "Kind": shown,
	}},
	{amem.Enrichment{}, "Enrichment", map[string]string{
		"State": shown, "Error": shown, "Attempts": shown, "At": shown, "DueAt": shown,
	}},
	{amem.Result{}, "Result", map[string]string{
		"Note": shown, "Score": shown, "Kind": shown, "Via": shown,
	}},
	{amem.Note{}, "Result", map[string]string{
		"ID": shown, "Namespace": shown, "Content": shown, "EventTime": shown, "Keywords": shown,
		"Tags": shown, "CuratorTags": shown, "Context": shown, "Metadata": shown,
		"CallerKeywords": shown, "CallerContext": shown, // as caller_set: whose context the reader sees
		"IngestTime": "a context list is read for what the notes say and when it happened",
		"UpdatedAt":  "a context list is read for what the notes say and when it happened",
		"Version":    "a context list is read for what the notes say; get the note for its state",
		"Enrichment": "a context list is read for what the notes say; get the note for its state",
		"Links":      "the linked notes come as results of their own (kind linked)",
		"Embedding":  "never on the wire but for amem show --embedding",

		"SupersededBy": shown, "ValidUntil": shown,
		"CallerValidity": "who decided the validity is the note's state; get the note for it",
	}},
	{amem.Neighbor{}, "Neighbor", map[string]string{"Link": shown, "Note": shown}},
	{amem.Trashed{}, "Trashed", map[string]string{
		"Note": shown, "DeletedAt": shown,
		"Versions": "the history comes back with the note on restore; a listing is read to choose what to restore",
	}},
	{amem.Version{}, "Version", map[string]string{
		"NoteID": shown, "Namespace": shown, "Version": shown, "Actor": shown, "Reason": shown,
		"Changes": shown, "Snapshot": shown, "CreatedAt": shown,
	}},
	{amem.FieldChange{}, "FieldChange", map[string]string{"Field": shown, "Old": shown, "New": shown}},
	{amem.Snapshot{}, "Snapshot", map[string]string{
		"Content": shown, "EventTime": shown, "Keywords": shown, "Tags": shown, "CuratorTags": shown,
		"Context": shown, "Metadata": shown, "ValidUntil": shown, "SupersededBy": shown,
		"CallerKeywords": shown, "CallerContext": shown, // as caller_set
	}},
	{amem.Usage{}, "Usage", map[string]string{"PromptTokens": shown, "CompletionTokens": shown}},
	{amem.UsageTotal{}, "UsageTotal", map[string]string{
		"Operation": shown, "Calls": shown, "PromptTokens": shown, "CompletionTokens": shown,
	}},
	{amem.Stats{}, "Stats", map[string]string{
		"Namespace": shown, "Notes": shown, "ByState": shown, "Links": shown, "Embedder": shown,
		"Dimensions": shown, "Usage": shown, "Tokens": shown,
		"Retention": shown, "RetentionDue": shown, // as retention, without a policy absent
	}},
	{amem.NamespaceInfo{}, "NamespaceInfo", map[string]string{
		"Name": shown, "Embedder": shown, "Dimensions": shown, "CreatedAt": shown,
	}},
}

// TestEveryFieldDecided fails when a domain type gains or loses a field
// that package wire has not decided on, so that no public shape changes
// by accident and none misses a field by oversight.
func TestEveryFieldDecided(t *testing.T) {
	for _, d := range decisions {
		typ := reflect.TypeOf(d.domain)
		var fields []string
		for _, f := range reflect.VisibleFields(typ) {
			if f.IsExported() && !f.Anonymous {
				fields = append(fields, f.Name)
			}
		}
		for _, f := range fields {
			if _, ok := d.fields[f]; !ok {
				t.Errorf("%v.%s: new field; decide in wire.%s whether clients see it, then list it in decisions", typ, f, d.in)
			}
		}
		for f := range d.fields {
			if !slices.Contains(fields, f) {
				t.Errorf("%v.%s is listed in decisions for wire.%s but is gone from the domain", typ, f, d.in)
			}
		}
	}
}
