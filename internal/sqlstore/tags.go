package sqlstore

import (
	"slices"
	"strings"

	"github.com/amem-dev/amem"
)

// Tag provenance is stored as one more key column beside tag_keys:
// curator_tag_keys, the TagKeys of Note.CuratorTags. Reads give back the
// note's tags whose key is there, so a curator tag is always one of the
// note's tags, spelt as the note spells it.

// CuratorTagKeys returns the curator_tag_keys column's value for n: the
// keys of its curator tags that are among its tags (a curator tag that
// isn't one of them is no tag of the note).
func CuratorTagKeys(n amem.Note) []string {
	tags := TagKeys(n.Tags)
	keys := TagKeys(n.CuratorTags)
	return slices.DeleteFunc(keys, func(k string) bool { return !slices.Contains(tags, k) })
}

// CuratorTagsOf returns the tags whose key is among keys, the curator_tag_keys
// column read back; nil when there are none, as a note added by its caller
// has them.
func CuratorTagsOf(tags, keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	var out []string
	for _, t := range tags {
		if slices.Contains(keys, strings.ToLower(t)) {
			out = append(out, t)
		}
	}
	return out
}

// TagColumns says how a filter's tag keys are tested: each must be in the
// key column within, and, when exclude is not empty, none in exclude (a
// caller's tag is one of the note's tags that the curator did not add).
func TagColumns(src amem.TagSource) (within, exclude string) {
	switch src {
	case amem.TagSourceCaller:
		return "tag_keys", "curator_tag_keys"
	case amem.TagSourceCurator:
		return "curator_tag_keys", ""
	}
	return "tag_keys", ""
}
