package sqlstore

import (
	"encoding/json"
	"fmt"

	"github.com/amem-dev/amem"
)

// EncodeVersion returns the JSON columns of a version: its changes ("[]"
// when none) and its snapshot. A snapshot that JSON can't hold (a time
// outside years 0-9999) is amem.ErrInvalid.
func EncodeVersion(v amem.Version) (changes, snapshot string, err error) {
	c := v.Changes
	if c == nil {
		c = []amem.FieldChange{}
	}
	if changes, err = MarshalJSON(c); err != nil {
		return "", "", err
	}
	if snapshot, err = MarshalJSON(v.Snapshot); err != nil {
		return "", "", fmt.Errorf("%w: %v", amem.ErrInvalid, err)
	}
	return changes, snapshot, nil
}

// DecodeVersion sets v's changes and snapshot from their JSON columns,
// giving back what AddVersion was given: empty lists rather than nil,
// nil metadata rather than empty, times in UTC.
func DecodeVersion(v *amem.Version, changes, snapshot string) error {
	if err := json.Unmarshal([]byte(changes), &v.Changes); err != nil {
		return fmt.Errorf("version %d: changes: %w", v.Version, err)
	}
	if err := json.Unmarshal([]byte(snapshot), &v.Snapshot); err != nil {
		return fmt.Errorf("version %d: snapshot: %w", v.Version, err)
	}
	normalizeVersion(v)
	return nil
}

// normalizeVersion gives a decoded version what AddVersion was given.
func normalizeVersion(v *amem.Version) {
	if v.Changes == nil {
		v.Changes = []amem.FieldChange{}
	}
	sn := &v.Snapshot
	if sn.Keywords == nil {
		sn.Keywords = []string{}
	}
	if sn.Tags == nil {
		sn.Tags = []string{}
	}
	if len(sn.Metadata) == 0 {
		sn.Metadata = nil
	}
	if !sn.EventTime.IsZero() {
		sn.EventTime = sn.EventTime.UTC()
	}
}
