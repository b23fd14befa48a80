package main

import (
	"fmt"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/memory"
)

// enrichRetry enriches the pending and failed notes of the namespace in
// use, or of every namespace without --namespace, at most limit a
// namespace (0: all). Each namespace is opened with its own embedder.
// Progress counts the enrichments, which can each take an LLM's seconds.
func (a *app) enrichRetry(limit int) error {
	type job struct {
		ns   string
		todo int
	}
	var jobs []job
	total := 0
	err := a.viewStore(func(tx amem.Tx) error {
		infos, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, in := range infos {
			if a.namespace != "" && in.Name != a.namespace {
				continue
			}
			st, err := tx.Stats(in.Name)
			if err != nil {
				return err
			}
			todo := st.ByState[amem.EnrichPending] + st.ByState[amem.EnrichFailed]
			if limit > 0 {
				todo = min(todo, limit)
			}
			if todo > 0 {
				jobs = append(jobs, job{in.Name, todo})
				total += todo
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	bar := a.newBar("enriching notes", total, 1)
	a.Cfg.Options.Enrich.OnEnrich = func(amem.Note, error) { bar.Add(1) }
	var done, failed int
	var first error
	for _, j := range jobs {
		err := a.withMemoryOf(j.ns, "", func(mem *memory.Memory) error {
			d, f, err := mem.EnrichPending(a.ctx, j.ns, limit)
			done, failed = done+d, failed+f
			if first == nil {
				first = err
			}
			return nil
		})
		if err != nil {
			bar.Stop()
			return err
		}
	}
	bar.Done()
	if a.jsonOut {
		if err := a.printJSON(map[string]int{"enriched": done, "failed": failed}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "enriched %s, %d failed\n", count(done, "note"), failed)
	}
	if failed > 0 {
		return fmt.Errorf("%s failed again; first error: %w", count(failed, "note"), first)
	}
	return nil
}
