package enrich

import "strings"

// merge3 applies the change base->proposed to current: items the proposal
// added are appended to current, items it removed are removed. It lets an
// evolution computed from an older copy of a note land on a newer one
// without losing the newer copy's changes.
func merge3(base, proposed, current []string) []string {
	key := strings.ToLower
	inBase := make(map[string]bool, len(base))
	for _, s := range base {
		inBase[key(s)] = true
	}
	inProp := make(map[string]bool, len(proposed))
	for _, s := range proposed {
		inProp[key(s)] = true
	}
	out := make([]string, 0, len(current)+len(proposed))
	seen := make(map[string]bool, len(current)+len(proposed))
	for _, s := range current {
		k := key(s)
		if (inBase[k] && !inProp[k]) || seen[k] {
			continue // removed by the proposal
		}
		seen[k] = true
		out = append(out, s)
	}
	for _, s := range proposed {
		k := key(s)
		if !inBase[k] && !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
