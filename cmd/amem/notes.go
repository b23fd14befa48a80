package main

import (
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

func (a *app) addCmd() *cobra.Command {
	var at, noteContext string
	var keywords, tags, meta []string
	c := &cobra.Command{
		Use:   "add TEXT|-",
		Short: "store a memory (enriched, linked and evolving its neighbours); prints its ID",
		Long: `add stores a memory, TEXT, or with - the text read from standard input
(one trailing newline dropped), enriches and links it, and prints its ID.`,
		Example: `  amem add "Caroline went to an LGBTQ support group on 7 May"
  amem add --time 2023-05-08T13:56:00Z --tag family --meta source=chat "Melanie painted a sunrise"
  amem add --context "Why we chose SQLite over Postgres for the CLI" "Decided: SQLite by default"
  git log -1 --format=%B | amem add --tag decisions -`,
		Args: exactArgs(1, "the memory's text, quoted, or - to read it from standard input"),
		RunE: func(cmd *cobra.Command, args []string) error {
			content := args[0]
			if content == "-" {
				var err error
				if content, err = a.readContent("add -"); err != nil {
					return err
				}
			}
			ev, err := eventTime(at)
			if err != nil {
				return err
			}
			md, err := parseMeta(meta)
			if err != nil {
				return err
			}
			if err := a.checkLLM(false, nil); err != nil {
				return err
			}
			return a.withNewMemory(func(mem *memory.Memory) error {
				n, err := mem.Add(a.ctx, amem.AddRequest{
					Namespace: a.ns(), Content: content, EventTime: ev,
					Keywords: keywords, Tags: tags, Context: noteContext, Metadata: md,
				})
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.NoteOf(n))
				}
				fmt.Fprintln(a.stdout, n.ID)
				if n.Enrichment.State == amem.EnrichFailed {
					fmt.Fprintf(a.stderr, "amem: stored, but enrichment failed: %s (retry with 'amem enrich --retry')\n", n.Enrichment.Error)
				}
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&at, "time", "", "when it was said or happened (RFC 3339 or YYYY-MM-DD; default now)")
	f.StringSliceVar(&keywords, "keyword", nil, "keyword to keep (repeatable or comma-separated); given, the keywords are yours and the curator writes none")
	f.StringVar(&noteContext, "context", "", "one-sentence context to keep; given, it is yours and the curator never rewrites it")
	f.StringSliceVar(&tags, "tag", nil, "tag to keep (repeatable or comma-separated)")
	f.StringArrayVar(&meta, "meta", nil, "metadata KEY=VALUE (repeatable)")
	return c
}

func (a *app) showCmd() *cobra.Command {
	var withEmb bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "show one note, with the model tokens its enrichment spent",
		Args:  exactArgs(1, "a note ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withNote(args[0], func(mem *memory.Memory, n amem.Note) error {
				usage, err := mem.NoteUsage(a.ctx, n.Namespace, n.ID)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.NoteDetailOf(n, withEmb, usage))
				}
				a.printNote(n)
				for _, u := range usage {
					calls := "calls"
					if u.Calls == 1 {
						calls = "call"
					}
					fmt.Fprintf(a.stdout, "  tokens:   %s %d + %d (%d %s)\n", u.Operation, u.PromptTokens, u.CompletionTokens, u.Calls, calls)
				}
				return nil
			})
		},
	}
	c.Flags().BoolVar(&withEmb, "embedding", false, "include the embedding in --json output")
	return c
}

func (a *app) listCmd() *cobra.Command {
	var after, state string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "list a namespace's notes, oldest first",
		Args:  exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The HTTP API's bounds (GET .../notes), checked before
			// anything is opened.
			if limit < 1 || limit > maxListLimit {
				return usagef("--limit %d: use a number of notes from 1 to %d", limit, maxListLimit)
			}
			switch amem.EnrichState(state) {
			case "", amem.EnrichPending, amem.EnrichDone, amem.EnrichFailed:
			default:
				return usagef("--state %q: use pending, done or failed", state)
			}
			if err := amem.ValidNamespace(a.ns()); err != nil {
				return err
			}
			return a.withMemory(func(mem *memory.Memory) error {
				if err := a.knownNamespace(mem, a.ns()); err != nil {
					return err
				}
				notes, err := mem.List(a.ctx, a.ns(), amem.ListQuery{After: after, Limit: limit, State: amem.EnrichState(state)})
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.Items(notes, wire.NoteOf))
				}
				for _, n := range notes {
					fmt.Fprintf(a.stdout, "%s  %s  %s\n", n.ID, n.EventTime.Format("2006-01-02"), oneLine(n.Content, 90))
				}
				if len(notes) == limit {
					fmt.Fprintf(a.stderr, "more: %s\n", nextPage(cmd, notes[len(notes)-1].ID))
				}
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&after, "after", "", "start after this ID (paging)")
	f.IntVar(&limit, "limit", 100, "at most this many notes")
	f.StringVar(&state, "state", "", "only notes in this enrichment state: pending, done or failed")
	return c
}

// maxListLimit is the most notes a page of list holds, as in the HTTP
// API.
const maxListLimit = 1000

func (a *app) linksCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "links ID",
		Short: "list the notes linked to a note, strongest first",
		Args:  exactArgs(1, "a note ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withNote(args[0], func(mem *memory.Memory, n amem.Note) error {
				nbs, err := mem.Links(a.ctx, n.Namespace, n.ID)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.Items(nbs, func(nb amem.Neighbor) wire.LinkedNote {
						return wire.LinkedNoteOf(n.ID, nb)
					}))
				}
				if len(nbs) == 0 {
					fmt.Fprintf(a.stdout, "%s has no links\n", n.ID)
				}
				for _, nb := range nbs {
					arrow := "->"
					if nb.Link.Target == n.ID {
						arrow = "<-"
					}
					fmt.Fprintf(a.stdout, "%s %s  %.2f  %s\n", arrow, nb.Note.ID, nb.Link.Strength, oneLine(nb.Note.Content, 80))
					if nb.Link.Reason != "" {
						fmt.Fprintf(a.stdout, "      %s\n", nb.Link.Reason)
					}
				}
				return nil
			})
		},
	}
}

func (a *app) historyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "history ID",
		Short: "list every version of a note: who changed what and why",
		Args:  exactArgs(1, "a note ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withNote(args[0], func(mem *memory.Memory, n amem.Note) error {
				vs, err := mem.History(a.ctx, n.Namespace, n.ID)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.Items(vs, historyVersionOf))
				}
				for _, v := range vs {
					fmt.Fprintf(a.stdout, "v%d  %s  %s: %s\n", v.Version, v.CreatedAt.Format(time.RFC3339), v.Actor, v.Reason)
					for _, c := range v.Changes {
						if v.Version == 1 {
							fmt.Fprintf(a.stdout, "    %s = %s\n", c.Field, oneLine(c.New, 100))
							continue
						}
						old, new := changedParts(c.Old, c.New, 60)
						fmt.Fprintf(a.stdout, "    %s: %s -> %s\n", c.Field, old, new)
					}
				}
				return nil
			})
		},
	}
}

func (a *app) restoreCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "restore ID [VERSION]",
		Short: "bring a note back to an earlier version, or from the trash without one (as a new version)",
		Args:  restoreArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return a.restoreTrashed(args[0])
			}
			v, err := strconv.Atoi(strings.TrimPrefix(args[1], "v"))
			if err != nil || v < 1 {
				return usagef("version %q is not a positive number (see 'amem history %s')", args[1], args[0])
			}
			return a.withNote(args[0], func(mem *memory.Memory, n amem.Note) error {
				n, err = mem.Restore(a.ctx, n.Namespace, n.ID, v)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.NoteOf(n))
				}
				fmt.Fprintf(a.stdout, "restored %s to version %d (now version %d)\n", n.ID, v, n.Version)
				return nil
			})
		},
	}
}

// parseTime reads s, the value of the time flag name, with amem.ParseTime;
// empty is the zero time.
func parseTime(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := amem.ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// eventTime reads add's --time: none means now, and a time given must be
// one a note can hold; 0001-01-01 is refused, not taken for now.
func eventTime(s string) (time.Time, error) {
	t, err := parseTime("--time", s)
	if err != nil || s == "" {
		return t, err
	}
	if err := amem.ValidEventTime(t); err != nil {
		return time.Time{}, fmt.Errorf("--time: %w", err)
	}
	return t, nil
}

// parseMeta reads --meta flags (amem.ParseMetadata).
func parseMeta(pairs []string) (map[string]string, error) {
	md, err := amem.ParseMetadata(pairs)
	if err != nil {
		return nil, fmt.Errorf("--meta: %w", err)
	}
	return md, nil
}

func sortedPairs(m map[string]string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

// readContent reads a note's text from standard input (amem add -, edit
// --content -, what names), one trailing newline (what echo and most
// editors add) dropped. Add and Update check its length; reading stops a
// little past any length they accept.
func (a *app) readContent(what string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(a.stdin, 16<<20))
	if err != nil {
		return "", fmt.Errorf("reading the text from standard input: %w", err)
	}
	text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if strings.TrimSpace(text) == "" {
		return "", usagef("%s: standard input holds no text", what)
	}
	return text, nil
}
