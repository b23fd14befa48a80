package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/wire"
)

func (a *app) exportCmd() *cobra.Command {
	var file string
	c := &cobra.Command{
		Use:   "export",
		Short: "write every note (or one namespace's with --namespace) as JSON lines, losslessly",
		Example: `  amem export > memory.jsonl
  amem import --db other.db < memory.jsonl`,
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Counting first checks the database is there, before the
			// output file is created.
			total, err := a.noteCount(a.namespace)
			if err != nil {
				return err
			}
			w := a.stdout
			if file != "" {
				f, err := os.Create(file)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			bar := a.newBar("exporting notes", total, exportStep)
			defer bar.Stop()
			return a.withMemory(func(mem *memory.Memory) error {
				if a.namespace != "" {
					if err := a.knownNamespace(mem, a.namespace); err != nil {
						return err
					}
				}
				n, err := mem.Export(a.ctx, lineCounter{w, bar}, a.namespace)
				if err != nil {
					return err
				}
				bar.Done()
				fmt.Fprintf(a.stderr, "exported %s\n", count(n, "note"))
				return nil
			})
		},
	}
	c.Flags().StringVarP(&file, "output", "o", "", "write to this file instead of stdout")
	return c
}

// The steps in which export and reembed go: a job of one step gets no
// progress bar. Tests make them smaller.
var (
	exportStep  = 500 // notes a page of the export
	reembedStep = 64  // notes an embedder call of reembed
)

func (a *app) statsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "count notes, links, enrichment states and model tokens per namespace",
		Args:  exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.namespace != "" {
				if err := amem.ValidNamespace(a.namespace); err != nil {
					return err
				}
			}
			return a.withMemory(func(mem *memory.Memory) error {
				if a.namespace != "" {
					if err := a.knownNamespace(mem, a.namespace); err != nil {
						return err
					}
				}
				st, err := mem.Stats(a.ctx, a.namespace)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.Items(st, wire.StatsOf))
				}
				if len(st) == 0 {
					fmt.Fprintln(a.stdout, "no notes yet")
				}
				for _, s := range st {
					fmt.Fprintf(a.stdout, "%s: %s (%d done, %d pending, %d failed), %s, embedder %s (%d-d)\n",
						s.Namespace, count(s.Notes, "note"), s.ByState[amem.EnrichDone], s.ByState[amem.EnrichPending], s.ByState[amem.EnrichFailed],
						count(s.Links, "link"), s.Embedder, s.Dimensions)
					if !s.Retention.IsZero() {
						fmt.Fprintf(a.stdout, "  retention: %s; %s\n", s.Retention, dueLine(s.RetentionDue))
					}
					if p, err := mem.SearchProfile(a.ctx, s.Namespace, ""); err == nil {
						fmt.Fprintf(a.stdout, "  search profile %s\n", p.Reason())
					}
					if s.Tokens != (amem.Usage{}) {
						fmt.Fprintf(a.stdout, "  tokens: %d prompt + %d completion\n", s.Tokens.PromptTokens, s.Tokens.CompletionTokens)
					}
					for _, u := range s.Usage {
						fmt.Fprintf(a.stdout, "  %s: %s, %d prompt + %d completion tokens (%.0f per call)\n",
							u.Operation, count(u.Calls, "call"), u.PromptTokens, u.CompletionTokens,
							float64(u.PromptTokens+u.CompletionTokens)/float64(max(u.Calls, 1)))
					}
				}
				return nil
			})
		},
	}
}

func (a *app) enrichCmd() *cobra.Command {
	var retry bool
	var limit int
	c := &cobra.Command{
		Use:   "enrich [ID]",
		Short: "enrich one note again, or with --retry every pending or failed note",
		Example: `  amem enrich --retry
  amem enrich 01JD8Z5Q4W7X0S9V2N3M4K5H6G`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if retry == (len(args) == 1) || len(args) > 1 {
				return usagef("give either one note ID or --retry")
			}
			if limit < 0 {
				return usagef("--limit %d: use a number of notes, or 0 for all", limit)
			}
			if err := a.checkLLM(false, nil); err != nil {
				return err
			}
			if retry {
				return a.enrichRetry(limit)
			}
			return a.withNote(args[0], func(mem *memory.Memory, n amem.Note) error {
				n, err := mem.Enrich(a.ctx, n.Namespace, n.ID)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(wire.NoteOf(n))
				}
				fmt.Fprintf(a.stdout, "enriched %s: %s\n", n.ID, count(len(n.Links), "link"))
				return nil
			})
		},
	}
	c.Flags().BoolVar(&retry, "retry", false, "enrich every pending or failed note")
	c.Flags().IntVar(&limit, "limit", 0, "with --retry, at most this many notes per namespace (0: all)")
	return c
}

func (a *app) embedCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "embed TEXT...",
		Short: "print the embeddings of texts with the configured embedder",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("embed needs at least one text")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := a.Cfg
			cfg.Log = a.stderr
			emb, err := local.NewEmbedder(a.ctx, cfg)
			if err != nil {
				return err
			}
			vecs, err := emb.Embed(a.ctx, args)
			if err != nil {
				return err
			}
			type row struct {
				Text      string    `json:"text"`
				Embedding []float32 `json:"embedding"`
			}
			out := make([]row, len(args))
			for i := range args {
				out[i] = row{args[i], vecs[i]}
			}
			if a.jsonOut {
				enc := a.stdout
				return jsonCompact(enc, out)
			}
			for _, r := range out {
				fmt.Fprintf(a.stdout, "%s (%d-d, %s): %.4f %.4f %.4f ...\n", oneLine(r.Text, 60), len(r.Embedding), emb.Name(), r.Embedding[0], r.Embedding[1], r.Embedding[2])
			}
			return nil
		},
	}
}

func (a *app) reembedCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "reembed",
		Short:   "recompute a namespace's vectors with the configured embedder (the explicit way to switch models)",
		Example: `  amem reembed --namespace alice --embedder openai:all-minilm`,
		Args:    exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.namespace == "" {
				return usagef("reembed needs --namespace NS (one namespace at a time)")
			}
			total, err := a.noteCount(a.namespace)
			if err != nil {
				return err
			}
			bar := a.newBar("re-embedding notes", total, reembedStep)
			defer bar.Stop()
			last := 0
			return a.withMemory(func(mem *memory.Memory) error {
				n, err := mem.ReembedWith(a.ctx, a.namespace, memory.ReembedOptions{Progress: func(done, _ int) {
					bar.Add(done - last)
					last = done
				}})
				if err != nil {
					return err
				}
				bar.Done()
				if a.jsonOut {
					return a.printJSON(map[string]any{"namespace": a.namespace, "reembedded": n, "embedder": mem.Embedder().Name()})
				}
				fmt.Fprintf(a.stdout, "re-embedded %s of %s with %s\n", count(n, "note"), a.namespace, mem.Embedder().Name())
				return nil
			})
		},
	}
}
