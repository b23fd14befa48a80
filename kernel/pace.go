package kernel

import (
	"runtime"
	"runtime/metrics"
)

// loadPacer bounds the garbage a namespace load leaves behind it. Reading
// a namespace allocates about as much garbage as the indexes keep: the
// SQLite driver copies every row's vector blob into a fresh slice before
// Changes decodes it, and every note's text is read to be tokenised and
// dropped. Under the default GOGC=100 the collector lets that garbage
// grow to the live heap's size before it runs, so a load briefly held
// 1.74-1.86x the memory the loaded indexes keep (issue 12 allows 1.5x).
// The pacer runs a collection whenever the load has allocated a fraction
// of the vectors it is loading since the last one, the collector's own
// included, which holds the spike near 1 + fraction whatever GOGC says.
type loadPacer struct {
	budget   uint64 // bytes allocated between collections
	rows     int
	sinceGC  uint64 // allocation counter at the last collection seen
	cycles   uint64 // collections seen
	samples  [2]metrics.Sample
	disabled bool
}

// paceFraction is the share of the loaded vectors' size that may be
// allocated between two collections during a load.
const paceFraction = 0.35

// paceFloor: loads whose budget would be smaller than this are not
// paced; a few megabytes of garbage don't matter and collections do.
const paceFloor = 2 << 20

// paceEvery is how many rows go by between looks at the allocation
// counter; reading runtime metrics costs about a microsecond.
const paceEvery = 1024

func newLoadPacer(notes, dim int) *loadPacer {
	p := &loadPacer{budget: uint64(paceFraction * float64(notes) * float64(dim) * 4)}
	if p.budget < paceFloor {
		p.disabled = true
		return p
	}
	p.samples[0].Name = "/gc/heap/allocs:bytes"
	p.samples[1].Name = "/gc/cycles/total:gc-cycles"
	p.sinceGC, p.cycles = p.read()
	return p
}

func (p *loadPacer) read() (allocs, cycles uint64) {
	metrics.Read(p.samples[:])
	return p.samples[0].Value.Uint64(), p.samples[1].Value.Uint64()
}

// row counts one row read, and collects when the load has allocated its
// budget since the last collection.
func (p *loadPacer) row() {
	if p.disabled {
		return
	}
	if p.rows++; p.rows%paceEvery != 0 {
		return
	}
	allocs, cycles := p.read()
	if cycles != p.cycles {
		// The collector ran on its own: count from here.
		p.sinceGC, p.cycles = allocs, cycles
		return
	}
	if allocs-p.sinceGC < p.budget {
		return
	}
	runtime.GC()
	p.sinceGC, p.cycles = p.read()
}
