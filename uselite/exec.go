package uselite

import (
	"fmt"
	"runtime/debug"
)

// frame is one worker's execution state for a plan: a tensor per computed
// slot, whose buffers are kept from run to run, so a warmed-up frame runs
// without allocating. A frame is used by one goroutine at a time.
type frame struct {
	slots []tensor
	ins   [][]*tensor
	outs  [][]*tensor
	env   env
	tok   tokScratch
	// sched is the schedule of an Embed call whose caller holds the
	// frame; batch the token lists of the run being fed.
	sched schedule
	batch [][]int32
}

func (p *plan) newFrame() *frame {
	f := &frame{slots: make([]tensor, p.nslots)}
	ptr := func(s int) *tensor {
		if c := p.consts[s]; c != nil {
			return c
		}
		return &f.slots[s]
	}
	f.ins = make([][]*tensor, len(p.steps))
	f.outs = make([][]*tensor, len(p.steps))
	for i, st := range p.steps {
		for _, s := range st.in {
			f.ins[i] = append(f.ins[i], ptr(s))
		}
		for _, s := range st.out {
			f.outs[i] = append(f.outs[i], ptr(s))
		}
	}
	return f
}

// input returns the tensor to fill for a placeholder.
func (p *plan) input(f *frame, name string) (*tensor, error) {
	s, ok := p.inputs[name]
	if !ok {
		return nil, fmt.Errorf("model has no input %q", name)
	}
	return &f.slots[s], nil
}

func (p *plan) result(f *frame) *tensor {
	if c := p.consts[p.output]; c != nil {
		return c
	}
	return &f.slots[p.output]
}

// run executes the plan. A kernel that fails reports the node; a kernel
// bug that would panic is turned into an error as well, so that bad input
// can never crash the caller.
func (p *plan) run(f *frame) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error running the model: %v\n%s", r, debug.Stack())
		}
	}()
	for i := range p.steps {
		st := &p.steps[i]
		if err := st.k.run(&f.env, f.ins[i], f.outs[i]); err != nil {
			return fmt.Errorf("node %q (%s): %w", st.name, st.op, err)
		}
	}
	return nil
}
