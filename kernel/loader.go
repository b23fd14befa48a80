package kernel

import (
	"errors"
	"sync/atomic"

	"github.com/amem-dev/amem"
)

// A loader carries a namespace load's rows from the goroutine reading
// the store to the one indexing them (loadAll), in batches, recycling
// the batches' vector buffers: the store decodes every row's vector into
// one buffer, so each is copied out, and a fresh buffer per row was most
// of a load's garbage.
type loader struct {
	dim    int
	cur    *loadBatch
	full   chan *loadBatch // to the indexer
	free   chan *loadBatch // back from it
	failed atomic.Bool     // the indexer met an error: stop reading
}

// loadBatchRows is how many rows go to the indexer at a time.
const loadBatchRows = 128

// loadInFlight is how many batches may wait for the indexer.
const loadInFlight = 8

type loadBatch struct {
	rows []loadRow
	vecs []float32 // the rows' vectors, dim floats each
}

// loadRow is one row of a load: a note's ID, change number, and text
// fields and copied vector (nil: none), or its deletion.
type loadRow struct {
	id      string
	seq     int64
	deleted bool
	text    amem.Note
	vec     []float32
}

// errLoadStopped ends the store read when the indexer has failed; the
// indexer's error is the one reported.
var errLoadStopped = errors.New("load stopped")

func newLoader(dim int) *loader {
	// Every batch is in full, in free, being filled or being indexed.
	return &loader{dim: dim, full: make(chan *loadBatch, loadInFlight), free: make(chan *loadBatch, loadInFlight+2)}
}

// add queues one change, sending the batch when it is full.
func (l *loader) add(c amem.Change) error {
	if l.failed.Load() {
		return errLoadStopped
	}
	if l.cur == nil {
		select {
		case l.cur = <-l.free:
			l.cur.rows, l.cur.vecs = l.cur.rows[:0], l.cur.vecs[:0]
		default:
			l.cur = &loadBatch{rows: make([]loadRow, 0, loadBatchRows), vecs: make([]float32, 0, loadBatchRows*l.dim)}
		}
	}
	r := loadRow{id: c.ID, seq: c.Seq, deleted: c.Deleted}
	if !c.Deleted {
		n := c.Note
		r.text = amem.Note{Content: n.Content, Context: n.Context, Keywords: n.Keywords, Tags: n.Tags, EventTime: n.EventTime}
		if len(n.Embedding) > 0 {
			if len(n.Embedding) != l.dim || len(l.cur.vecs)+l.dim > cap(l.cur.vecs) {
				// A vector of another size: its own copy, for the
				// index to refuse.
				r.vec = append([]float32(nil), n.Embedding...)
			} else {
				at := len(l.cur.vecs)
				l.cur.vecs = append(l.cur.vecs, n.Embedding...)
				r.vec = l.cur.vecs[at:len(l.cur.vecs):len(l.cur.vecs)]
			}
		}
	}
	l.cur.rows = append(l.cur.rows, r)
	if len(l.cur.rows) == loadBatchRows {
		l.flush()
	}
	return nil
}

// drain runs on the indexing goroutine: index takes each row in order
// until it fails; the rows after are passed over and the reader told to
// stop. It returns index's error.
func (l *loader) drain(index func(loadRow) error) (err error) {
	for b := range l.full {
		for _, r := range b.rows {
			if err == nil {
				err = index(r)
			}
		}
		if err != nil {
			l.failed.Store(true)
		}
		l.free <- b
	}
	return err
}

// finish sends the last batch and ends the load's rows.
func (l *loader) finish() {
	l.flush()
	close(l.full)
}

// flush sends the batch being filled, if any.
func (l *loader) flush() {
	if l.cur != nil && len(l.cur.rows) > 0 {
		l.full <- l.cur
		l.cur = nil
	}
}
