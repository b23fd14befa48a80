package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

func (a *app) editCmd() *cobra.Command {
	var content, at, context, reason, supersededBy, validUntil string
	var keywords, tags, meta, giveBack []string
	var current bool
	c := &cobra.Command{
		Use:   "edit ID",
		Short: "change a note's content, context, keywords, tags, time, metadata or validity; prints its new version",
		Long: `edit changes the fields given and leaves the others as they are, as the
HTTP API's PATCH does, with the same checks. New content (--content, or
--content - to read it from standard input) clears the curator's keywords
and context and enriches the note again; --keywords and --tags replace the
lists ('' empties them), --metadata replaces the whole map ('' empties it).
Keywords or a context you give are yours: the curator never rewrites them
until you --give-back keywords or context. --superseded-by NEWER marks the
note no longer true (search lists it after NEWER), --valid-until T ends it at
a time, --current makes it true again; your word on validity wins over the
curator's. The change is a new version in the note's history, with --reason.`,
		Example: `  amem edit 01JD8Z5Q4W7X0S9V2N3M4K5H6G --tags family,travel --reason "retagged"
  amem edit 01JD8Z5Q4W7X0S9V2N3M4K5H6G --time 2023-05-08 --metadata source=chat
  pbpaste | amem edit 01JD8Z5Q4W7X0S9V2N3M4K5H6G --content -
  amem edit 01JD8Z5Q4W7X0S9V2N3M4K5H6G --superseded-by 01JD9A0B1C2D3E4F5G6H7J8K9M --reason "tested negative"`,
		Args: exactArgs(1, "a note ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			req := amem.UpdateRequest{Reason: reason}
			if f.Changed("content") {
				if content == "-" {
					var err error
					if content, err = a.readContent("edit --content -"); err != nil {
						return err
					}
				}
				req.Content = &content
			}
			if f.Changed("context") {
				req.Context = &context
			}
			if f.Changed("keywords") {
				req.Keywords = &keywords
			}
			if f.Changed("tags") {
				req.Tags = &tags
			}
			if f.Changed("time") {
				t, err := parseTime("--time", at)
				if err != nil {
					return err
				}
				req.EventTime = &t // Update refuses a time no note can hold
			}
			if f.Changed("metadata") {
				md, err := editMetadata(meta)
				if err != nil {
					return err
				}
				req.Metadata = md
			}
			for _, g := range giveBack {
				req.GiveBack = append(req.GiveBack, amem.Attribute(g))
			}
			v, err := editValidity(f.Changed("superseded-by"), supersededBy, f.Changed("valid-until"), validUntil, current)
			if err != nil {
				return err
			}
			req.Validity = v
			if req.Content == nil && req.Context == nil && req.Keywords == nil && req.Tags == nil &&
				req.EventTime == nil && req.Metadata == nil && len(req.GiveBack) == 0 && req.Validity == nil {
				return usagef("nothing to change: give --content, --context, --keywords, --tags, --time, --metadata, --give-back, --superseded-by, --valid-until or --current")
			}
			if req.Content != nil {
				// New content is enriched again, by the LLM if one is set.
				if err := a.checkLLM(false, nil); err != nil {
					return err
				}
			}
			return a.withNote(args[0], func(mem *memory.Memory, n amem.Note) error {
				before := n.Version
				n, err := mem.Update(a.ctx, n.Namespace, n.ID, req)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.NoteOf(n))
				}
				fmt.Fprintf(a.stdout, "edited %s: version %d (was %d)\n", n.ID, n.Version, before)
				if n.Enrichment.State == amem.EnrichFailed {
					fmt.Fprintf(a.stderr, "amem: stored, but enrichment failed: %s (retry with 'amem enrich %s')\n", n.Enrichment.Error, n.ID)
				}
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&content, "content", "", "the new text, or - to read it from standard input (one trailing newline dropped)")
	f.StringVar(&context, "context", "", "the new context sentence")
	f.StringSliceVar(&keywords, "keywords", nil, "the keywords, replacing all (comma-separated or repeated; '' for none)")
	f.StringSliceVar(&tags, "tags", nil, "the tags, replacing all, the curator's included (comma-separated or repeated; '' for none)")
	f.StringVar(&at, "time", "", "when it was said or happened (RFC 3339 or YYYY-MM-DD)")
	f.StringArrayVar(&meta, "metadata", nil, "metadata KEY=VALUE, replacing all (repeatable; '' for none)")
	f.StringSliceVar(&giveBack, "give-back", nil, "hand keywords or context (or both) back to the curator, which enriches the note again")
	f.StringVar(&supersededBy, "superseded-by", "", "the ID of the note that made this one no longer true")
	f.StringVar(&validUntil, "valid-until", "", "when this note stopped being true (RFC 3339 or YYYY-MM-DD)")
	f.BoolVar(&current, "current", false, "make the note true again (undo a supersession)")
	f.StringVar(&reason, "reason", "", "why, kept in the note's history (default \"updated\")")
	return c
}

// editValidity reads edit's validity flags into the caller's word on
// whether the note is still true: nil when none was given.
func editValidity(bySet bool, by string, untilSet bool, until string, current bool) (*amem.Validity, error) {
	switch {
	case current && (bySet || untilSet):
		return nil, usagef("--current makes the note true again: give it without --superseded-by or --valid-until")
	case current:
		return &amem.Validity{}, nil
	case !bySet && !untilSet:
		return nil, nil
	}
	v := &amem.Validity{SupersededBy: by}
	if untilSet {
		t, err := parseTime("--valid-until", until)
		if err != nil {
			return nil, err
		}
		v.Until = t
	}
	return v, nil
}

// editMetadata reads edit's --metadata: one empty value clears the map,
// which Update takes from an empty, non-nil map.
func editMetadata(pairs []string) (map[string]string, error) {
	if len(pairs) == 1 && pairs[0] == "" {
		return map[string]string{}, nil
	}
	md, err := amem.ParseMetadata(pairs)
	if err != nil {
		return nil, fmt.Errorf("--metadata: %w", err)
	}
	return md, nil
}
