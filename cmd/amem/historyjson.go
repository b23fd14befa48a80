package main

import (
	"encoding/json"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/wire"
)

// historyVersion is a version as `amem history --json` prints it: the
// HTTP API's shape (wire.Version), except that each change's old and new
// values are JSON values (a string, a list, an object), not JSON text
// inside a string that a program would have to decode twice.
type historyVersion struct {
	wire.Version
	// Changes shadows wire.Version's: encoding/json takes the shallower
	// field of a name.
	Changes []historyChange `json:"changes"`
}

type historyChange struct {
	Field string          `json:"field"`
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
}

func historyVersionOf(v amem.Version) historyVersion {
	return historyVersion{Version: wire.VersionOf(v), Changes: wire.Items(v.Changes, historyChangeOf)}
}

func historyChangeOf(c amem.FieldChange) historyChange {
	return historyChange{Field: c.Field, Old: jsonValue(c.Old), New: jsonValue(c.New)}
}

// jsonValue is s, which the memory writes as JSON, as a raw JSON value. A
// value that is not JSON (a store written by hand) becomes a JSON string
// rather than an output no program can read.
func jsonValue(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
