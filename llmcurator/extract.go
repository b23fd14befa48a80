package llmcurator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// decodeFirstObject decodes the first JSON object in text into out. Models
// without structured output wrap JSON in prose or code fences; the first
// '{' from which a whole object decodes wins. Unknown fields are an error,
// so a misspelt field is repaired rather than silently lost.
func decodeFirstObject(text string, out any) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("the answer is empty")
	}
	var firstErr error
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		var raw json.RawMessage
		if err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&raw); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		// A repair answer must not inherit fields of the first one.
		reflect.ValueOf(out).Elem().SetZero()
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(out); err != nil {
			return fmt.Errorf("the JSON object does not fit the schema: %v", err)
		}
		return nil
	}
	if firstErr != nil {
		return fmt.Errorf("no complete JSON object in the answer: %v", firstErr)
	}
	return errors.New("no JSON object in the answer")
}
