package kernel

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/index/hnsw"
)

// The kernel's background work (building approximate indexes, writing
// an index's files again, deleting saved files the store contradicts)
// runs on one goroutine that New starts and Close stops. A read only
// asks for it: no search waits on a build, writes a file or deletes
// one, and nothing outlives Close. One goroutine, not one per job,
// because a build already takes a core for minutes at a million notes
// and the jobs are rare; they run in the order they were asked for, so
// a stale file's deletion comes before the build that replaces it.

type jobKind int

const (
	jobBuild  jobKind = iota // build s's approximate index (build.go)
	jobResave                // write s's index x and float file again
	jobDrop                  // delete ns's saved files of kinds exts
)

type job struct {
	kind jobKind
	s    *Space
	x    *hnsw.Index
	ns   string
	exts []string // annExt, vecExt, lexExt
}

// ask queues a job for the maintainer; after Close it is dropped (Close
// saves what changed). It never blocks, so it may be called under a
// Space's lock.
func (k *Kernel) ask(j job) bool {
	k.jobsMu.Lock()
	defer k.jobsMu.Unlock()
	if k.bg.Err() != nil {
		return false
	}
	k.jobs = append(k.jobs, j)
	select {
	case k.wake <- struct{}{}:
	default:
	}
	return true
}

// next takes the oldest job queued.
func (k *Kernel) next() (job, bool) {
	k.jobsMu.Lock()
	defer k.jobsMu.Unlock()
	if len(k.jobs) == 0 {
		return job{}, false
	}
	j := k.jobs[0]
	k.jobs[0] = job{}
	k.jobs = k.jobs[1:]
	return j, true
}

// maintain is the maintainer goroutine. Once Close cancels k.bg it
// still deletes the files it was asked to (quick, and a contradicted
// file left behind would be read and refused again by the next
// process) but starts no build or write.
func (k *Kernel) maintain() {
	defer close(k.stopped)
	for {
		select {
		case <-k.wake:
		case <-k.bg.Done():
		}
		for {
			j, ok := k.next()
			if !ok {
				break
			}
			if k.bg.Err() != nil && j.kind != jobDrop {
				continue
			}
			k.do(j)
		}
		if k.bg.Err() != nil {
			return
		}
	}
}

func (k *Kernel) do(j job) {
	switch j.kind {
	case jobBuild:
		if err := k.build(j.s); err != nil {
			j.s.mu.Lock()
			j.s.building = false
			j.s.mu.Unlock()
			if !errors.Is(err, context.Canceled) && !errors.Is(err, amem.ErrClosed) {
				k.log.Warn("building the approximate vector index; searches stay exact", "namespace", j.s.ns, "err", err)
			}
		}
	case jobResave:
		k.resave(j.s, j.x)
	case jobDrop:
		for _, ext := range j.exts {
			p := savedPath(k.opts.IndexDir, j.ns, ext)
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				k.log.Warn("delete saved index", "namespace", j.ns, "err", err)
			}
		}
	}
}
