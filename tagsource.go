package amem

import (
	"slices"
	"strings"
)

// TagSource names who gave a note's tag: the caller (Add, Update, an
// import) or the curator (construction, evolution). A curator's tag can
// be wrong; a caller's is what the caller asked for, so a filter can ask
// for the caller's alone.
type TagSource string

const (
	// TagSourceAny matches a filter's tags against all of a note's tags.
	TagSourceAny TagSource = ""
	// TagSourceCaller matches only the tags the caller gave.
	TagSourceCaller TagSource = "caller"
	// TagSourceCurator matches only the tags the curator added.
	TagSourceCurator TagSource = "curator"
)

// ParseTagSource reads a tag source as the CLI, the HTTP API and the MCP
// tools take it: "caller", "curator", or "" or "any" for every tag.
func ParseTagSource(s string) (TagSource, error) {
	switch src := TagSource(strings.ToLower(strings.TrimSpace(s))); src {
	case TagSourceAny, "any":
		return TagSourceAny, nil
	case TagSourceCaller, TagSourceCurator:
		return src, nil
	}
	return "", invalidf("tag source %q; use caller, curator or any", s)
}

// CallerTags returns the note's tags that its caller gave: Tags less
// CuratorTags, in Tags' order.
func (n Note) CallerTags() []string {
	out := make([]string, 0, len(n.Tags))
	for _, t := range n.Tags {
		if !HasTag(n.CuratorTags, t) {
			out = append(out, t)
		}
	}
	return out
}

// HasTag reports whether tags holds t, compared as filters compare tags
// (strings.ToLower, which is not quite strings.EqualFold).
func HasTag(tags []string, t string) bool {
	k := strings.ToLower(t)
	return slices.ContainsFunc(tags, func(s string) bool { return strings.ToLower(s) == k })
}
