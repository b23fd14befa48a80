package main

import (
	"bytes"
	"io"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/internal/progress"
)

// newBar starts a progress bar on stderr for a job of total units done
// step at a time, or returns nil (no bar: a nil *progress.Bar reports
// nothing) when the job is one step: such a job is over before a bar
// would say anything, and its line would be noise.
func (a *app) newBar(label string, total, step int) *progress.Bar {
	if total <= step {
		return nil
	}
	return progress.New(a.stderr, label, total, progress.Options{})
}

// lineCounter passes writes to w and counts the lines they end on bar:
// export's records are one a line.
type lineCounter struct {
	w   io.Writer
	bar *progress.Bar
}

func (c lineCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.bar.Add(bytes.Count(p[:n], []byte{'\n'}))
	return n, err
}

// noteCount is how many notes namespace ns holds (every namespace, for
// ""): the size of a job over them, read without loading an embedder.
func (a *app) noteCount(ns string) (int, error) {
	total := 0
	err := a.viewStore(func(tx amem.Tx) error {
		infos, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, in := range infos {
			if ns != "" && in.Name != ns {
				continue
			}
			st, err := tx.Stats(in.Name)
			if err != nil {
				return err
			}
			total += st.Notes
		}
		return nil
	})
	return total, err
}
