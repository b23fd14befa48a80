package enrich

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/amem-dev/amem"

	"go.opentelemetry.io/otel/attribute"
)

// Bounds on what the curator may write, applied after it answers.
const (
	curatorKeywords = 16
	curatorTags     = 8
	maxLinksPerNote = 32
)

// Enrich runs the A-Mem pipeline on a stored note: construct its keywords,
// tags and context; embed it; show its nearest notes to the curator; apply
// the links and neighbour evolutions the curator decides, re-embedding the
// changed neighbours, all in one transaction. It retries failed notes and
// re-enriches done ones.
//
// A curator error marks the note failed (still stored and searchable) and
// is returned as an *Error. Curator output naming notes it was not shown
// is dropped and logged.
func (e *Engine) Enrich(ctx context.Context, ns, id string) (amem.Note, error) {
	return e.enrichOnce(ctx, ns, id, nil)
}

// EnrichNew enriches a note unless it is done (a note just written, or
// one to retry): a caller that waited on another's enrichment of it pays
// for nothing.
func (e *Engine) EnrichNew(ctx context.Context, ns, id string) (amem.Note, error) {
	return e.enrichOnce(ctx, ns, id, notDone)
}

// notDone is the due test of Add and EnrichPending: whatever is not
// enriched yet.
func notDone(n amem.Note) bool { return n.Enrichment.State != amem.EnrichDone }

// dueNow is the workers' due test: the note is queued and its time has
// come.
func (e *Engine) dueNow(n amem.Note) bool {
	st := n.Enrichment
	return st.State != amem.EnrichDone && !st.DueAt.IsZero() && !st.DueAt.After(e.c.Now())
}

// enrichOnce enriches a note under its claim in the store (claim.go), so
// one enrichment of a note runs at a time across processes. A caller that
// finds one running waits for it to end and then decides afresh, as the
// note may have changed after that run began. due, when set, is asked
// about the note as read then: a note no longer due (another caller just
// enriched it, or failed it once more) is returned as is, so the waiter
// pays for nothing. Without due (Enrich) the note is enriched again.
func (e *Engine) enrichOnce(ctx context.Context, ns, id string, due func(amem.Note) bool) (amem.Note, error) {
	if e.c.Curator == nil {
		return e.get(ctx, ns, id)
	}
	c, err := e.claim(ctx, ns, id)
	if err != nil {
		return amem.Note{}, err
	}
	return e.enrichClaimed(ctx, c, due)
}

// enrichClaimed enriches the note of a claim just taken, and ends the
// claim.
func (e *Engine) enrichClaimed(ctx context.Context, c *claim, due func(amem.Note) bool) (amem.Note, error) {
	defer c.end()
	n, ran, err := e.enrich(ctx, c, due)
	if ran && e.c.OnEnrich != nil {
		e.c.OnEnrich(n, err)
	}
	return n, err
}

// enrich runs the pipeline on a claimed note; ran is false when there was
// nothing to do (a note that is not due).
func (e *Engine) enrich(ctx context.Context, c *claim, due func(amem.Note) bool) (_ amem.Note, ran bool, err error) {
	ctx, span := e.startSpan(ctx, "amem.enrich", attrNamespace.String(c.ref.Namespace), attrNoteID.String(c.ref.ID))
	defer func() {
		span.SetAttributes(attribute.Bool("amem.enrich.ran", ran))
		endSpan(span, err)
	}()
	ns, id := c.ref.Namespace, c.ref.ID
	n, err := e.get(ctx, ns, id)
	if err != nil {
		return amem.Note{}, false, err
	}
	if due != nil && !due(n) {
		return n, false, nil
	}
	p, err := e.plan(ctx, n)
	if err != nil {
		if ctx.Err() != nil {
			// Cancelled, not failed: the note stays queued for a retry,
			// but the tokens spent so far were paid for.
			e.recordSpent(ctx, n, p.usage)
			return amem.Note{}, false, err
		}
		if ferr := e.markFailed(ctx, c, n, err, p.usage); ferr != nil {
			return amem.Note{}, true, errors.Join(err, ferr)
		}
		e.log.Warn("enrichment failed", "namespace", ns, "note", id, "err", err)
		failed, gerr := e.get(ctx, ns, id)
		if gerr != nil {
			return amem.Note{}, true, errors.Join(err, gerr)
		}
		return failed, true, &Error{NoteID: id, Err: err}
	}
	if err := e.applyTraced(ctx, c, p); err != nil {
		e.recordSpent(ctx, n, p.usage)
		return amem.Note{}, true, fmt.Errorf("enrich %s: %w", id, err)
	}
	e.h.Advance(ctx, ns)
	done, err := e.get(ctx, ns, id)
	return done, true, err
}

// recordSpent records the tokens of an enrichment whose outcome could not
// be written (cancelled, or a failed write), in a transaction of its own
// that the caller's cancellation does not stop.
func (e *Engine) recordSpent(ctx context.Context, n amem.Note, spent usage) {
	if spent.zero() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := e.h.Update(ctx, func(tx amem.Tx) error {
		return spent.record(tx, n.Namespace, n.ID, e.c.Now().UTC())
	})
	if err != nil && !errors.Is(err, amem.ErrClosed) {
		e.log.Warn("record token usage", "namespace", n.Namespace, "note", n.ID, "err", err)
	}
}

// EnrichPending enriches up to limit notes of the namespace that are
// pending or failed (the retry path of `amem enrich --retry`), oldest
// first. It returns how many succeeded and the first error; it goes on
// past failures. The caller checks ns.
func (e *Engine) EnrichPending(ctx context.Context, ns string, limit int) (done, failed int, err error) {
	var todo []string
	for _, st := range []amem.EnrichState{amem.EnrichPending, amem.EnrichFailed} {
		if limit > 0 && len(todo) >= limit {
			break
		}
		err := amem.EachPage(func(after string, n int) ([]amem.Note, error) {
			return e.list(ctx, ns, amem.ListQuery{After: after, Limit: n, State: st})
		}, func(page []amem.Note) (bool, error) {
			for _, n := range page {
				todo = append(todo, n.ID)
			}
			return limit <= 0 || len(todo) < limit, nil
		})
		if err != nil {
			return 0, 0, err
		}
	}
	slices.Sort(todo)
	if limit > 0 && len(todo) > limit {
		todo = todo[:limit]
	}
	var first error
	for _, id := range todo {
		if cerr := ctx.Err(); cerr != nil {
			return done, failed, cerr
		}
		if _, eerr := e.enrichOnce(ctx, ns, id, notDone); eerr != nil {
			failed++
			if first == nil {
				first = eerr
			}
			continue
		}
		done++
	}
	return done, failed, first
}

// plan is everything the curator decided for one note, validated and
// re-embedded, ready to be written in one transaction.
type plan struct {
	note    amem.Note     // the enriched note, new embedding, Version not yet bumped
	base    amem.Note     // the note as read before enrichment
	links   []amem.Link   // from note to shown candidates
	evolved []evolvedNote // candidates to rewrite
	usage   usage
	// supersede is the candidates the note supersedes (supersede.go).
	supersede []supersession
}

// usage is the tokens the curator spent on a note, by operation; paid for
// whether or not its answers could be used.
type usage struct{ construct, connect, evolve amem.Usage }

func (u usage) zero() bool { return u == usage{} }

// record keeps u in tx; a store that keeps no usage (amem.UsageKeeper)
// is not told.
func (u usage) record(tx amem.Tx, ns, id string, at time.Time) error {
	k, ok := tx.(amem.UsageKeeper)
	if !ok {
		return nil
	}
	for _, op := range []struct {
		name string
		u    amem.Usage
	}{{"construct", u.construct}, {"connect", u.connect}, {"evolve", u.evolve}} {
		if op.u == (amem.Usage{}) {
			continue
		}
		if err := k.RecordUsage(amem.UsageRecord{Namespace: ns, NoteID: id, Operation: op.name, Usage: op.u, At: at}); err != nil {
			return err
		}
	}
	return nil
}

type evolvedNote struct {
	shown  amem.Note // the candidate as shown to the curator
	next   amem.Note // its proposed new state, re-embedded
	reason string
}

// plan asks the curator about a note. The plan is never nil: on an error
// it holds the tokens spent before it.
func (e *Engine) plan(ctx context.Context, base amem.Note) (*plan, error) {
	cur := e.c.Curator
	p := &plan{base: base}
	if err := e.warmCurator(ctx, base.Namespace); err != nil {
		return p, err
	}
	n := base.Clone()

	cctx, span := e.startSpan(ctx, "amem.construct")
	attrs, err := cur.Construct(cctx, n)
	p.usage.construct = attrs.Usage
	span.SetAttributes(usageAttrs(attrs.Usage)...)
	endSpan(span, err)
	if err != nil {
		return p, fmt.Errorf("construct: %w", err)
	}
	construct(&n, attrs.Keywords, attrs.Tags, attrs.Context)
	constructed := e.c.EmbedText(n)
	if !e.sameVector(base, n) {
		vecs, err := e.embed(ctx, []string{constructed})
		if err != nil {
			return p, err
		}
		n.Embedding = vecs[0]
	}

	cctx, span = e.startSpan(ctx, "amem.connect")
	dec, cands, err := e.connect(cctx, n)
	p.usage.connect, p.usage.evolve = dec.Usage, dec.EvolveUsage
	span.SetAttributes(attrCandidates.Int(len(cands)), attrLinks.Int(len(dec.Links)), attrEvolutions.Int(len(dec.Evolve)))
	span.SetAttributes(usageAttrs(dec.Usage.Add(dec.EvolveUsage))...)
	endSpan(span, err)
	if err != nil {
		return p, err
	}
	shown := make(map[string]amem.Note, len(cands))
	for _, c := range cands {
		shown[c.Note.ID] = c.Note
	}

	if dec.Note != nil {
		construct(&n, dec.Note.Keywords, dec.Note.Tags, dec.Note.Context)
	}
	n.CuratorTags = curatedTags(base, n.Tags)

	now := e.c.Now().UTC()
	linked := make(map[string]bool)
	if c, ok := e.restatementOf(n, cands); ok {
		linked[c.Note.ID] = true
		p.links = append(p.links, amem.Link{
			Source: n.ID, Target: c.Note.ID,
			Reason:   fmt.Sprintf("%s note %s (cosine %.2f, same names, numbers and negation)", RestatementReason, c.Note.ID, c.Similarity),
			Strength: 1, CreatedAt: now,
		})
	}
	for _, ld := range dec.Links {
		if _, ok := shown[ld.Target]; !ok {
			e.log.Warn("curator linked a note it was not shown; dropped", "namespace", n.Namespace, "note", n.ID, "target", ld.Target)
			continue
		}
		if linked[ld.Target] || len(p.links) == maxLinksPerNote {
			continue
		}
		linked[ld.Target] = true
		p.links = append(p.links, amem.Link{
			Source: n.ID, Target: ld.Target,
			Reason:   cleanText(ld.Reason, maxReasonBytes),
			Strength: clamp01(ld.Strength), CreatedAt: now,
		})
	}
	e.planSupersessions(p, n, dec, cands)

	evolvedSeen := make(map[string]bool)
	var texts []string
	var textOf []int // the evolved neighbour of each text
	for _, ev := range dec.Evolve {
		old, ok := shown[ev.Target]
		if !ok {
			e.log.Warn("curator evolved a note it was not shown; dropped", "namespace", n.Namespace, "note", n.ID, "target", ev.Target)
			continue
		}
		if evolvedSeen[ev.Target] {
			continue
		}
		evolvedSeen[ev.Target] = true
		next := evolve(old, ev)
		if amem.SameSnapshot(old.Snapshot(), next.Snapshot()) {
			continue
		}
		p.evolved = append(p.evolved, evolvedNote{shown: old, next: next, reason: cleanText(ev.Reason, maxReasonBytes)})
		if !e.sameVector(old, next) {
			texts = append(texts, e.c.EmbedText(next))
			textOf = append(textOf, len(p.evolved)-1)
		}
	}

	// Embed the evolved neighbours, and the note again if the curator
	// refined its attributes, in one call; a note whose text did not
	// change keeps its vector.
	refined := e.c.EmbedText(n) != constructed
	if refined {
		texts = append(texts, e.c.EmbedText(n))
	}
	vecs, err := e.embed(ctx, texts)
	if err != nil {
		return p, err
	}
	for i, j := range textOf {
		p.evolved[j].next.Embedding = vecs[i]
	}
	if refined {
		n.Embedding = vecs[len(vecs)-1]
	}
	n.Enrichment = amem.Enrichment{State: amem.EnrichDone, Attempts: base.Enrichment.Attempts + 1, At: now}
	p.note = n
	return p, nil
}

// connect shows the note's nearest notes to the curator and returns its
// decision about them.
func (e *Engine) connect(ctx context.Context, n amem.Note) (amem.Decision, []amem.Candidate, error) {
	cands, err := e.h.Nearest(ctx, n, e.c.Candidates)
	if err != nil {
		return amem.Decision{}, nil, err
	}
	dec, err := e.c.Curator.Connect(ctx, n, cands)
	if err != nil {
		return dec, cands, fmt.Errorf("connect: %w", err)
	}
	return dec, cands, nil
}

// applyTraced is apply under its span, amem.store.
func (e *Engine) applyTraced(ctx context.Context, c *claim, p *plan) error {
	ctx, span := e.startSpan(ctx, "amem.store", attrLinks.Int(len(p.links)), attrEvolutions.Int(len(p.evolved)))
	err := e.apply(ctx, c, p)
	endSpan(span, err)
	return err
}

// warmState is whether a namespace's curator statistics are warm.
type warmState struct {
	mu   sync.Mutex
	done bool
}

// warmCurator shows an Observer curator the namespace's enriched notes,
// oldest first, once per process. A failure is returned and the warm-up
// is tried again next time.
func (e *Engine) warmCurator(ctx context.Context, ns string) error {
	obs, ok := e.c.Curator.(amem.Observer)
	if !ok {
		return nil
	}
	e.warmMu.Lock()
	w := e.warm[ns]
	if w == nil {
		w = &warmState{}
		e.warm[ns] = w
	}
	e.warmMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	err := amem.EachPage(func(after string, n int) ([]amem.Note, error) {
		return e.list(ctx, ns, amem.ListQuery{After: after, Limit: n})
	}, func(page []amem.Note) (bool, error) {
		for _, n := range page {
			// Pending notes are counted when they are constructed.
			if n.Enrichment.State != amem.EnrichPending {
				obs.Observe(n)
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("warm curator: %w", err)
	}
	w.done = true
	return nil
}

// construct adds the curator's attributes to n, sanitised: earlier
// terms (the caller's first) come first and the curator's follow; a
// context replaces n's. What the caller wrote (Note.CallerKeywords,
// Note.CallerContext) is left exactly as it is.
func construct(n *amem.Note, keywords, tags []string, context string) {
	if !n.CallerKeywords {
		n.Keywords = cleanTerms(append(slices.Clone(n.Keywords), keywords...), curatorKeywords)
	}
	n.Tags = cleanTerms(append(slices.Clone(n.Tags), tags...), curatorTags)
	if c := cleanText(context, amem.MaxContextBytes); c != "" && !n.CallerContext {
		n.Context = c
	}
}

// evolve returns old with the evolution's fields applied, sanitised,
// except those the caller wrote.
func evolve(old amem.Note, ev amem.Evolution) amem.Note {
	next := old.Clone()
	if ev.Keywords != nil && !old.CallerKeywords {
		next.Keywords = cleanTerms(ev.Keywords, curatorKeywords)
	}
	if ev.Tags != nil {
		next.Tags = cleanTerms(ev.Tags, curatorTags)
		next.CuratorTags = curatedTags(old, next.Tags)
	}
	if ev.Context != nil && !old.CallerContext {
		next.Context = cleanText(*ev.Context, amem.MaxContextBytes)
	}
	return next
}

// apply writes a plan in one transaction, which also releases the note's
// claim: if the claim was lost (another process took the note over), the
// transaction rolls back and nothing is written. If the note's content or
// time was edited while the curator worked, or its caller gave keywords or
// context back to the curator (which this plan left alone), the plan is
// stale and is dropped (its tokens are recorded): the edit queued its own
// enrichment. A
// note (the new one or a neighbour) changed meanwhile by another
// enrichment gets this plan's change merged onto its current state; a
// merge whose vector we don't have is re-embedded outside the transaction
// and the write tried again. Every note write is compare-and-set on the
// version read in the same transaction, so a store that lets a concurrent
// writer in (ErrConflict) gets a retry too.
func (e *Engine) apply(ctx context.Context, c *claim, p *plan) error {
	ns, id := p.note.Namespace, p.note.ID
	self := &evolvedNote{shown: p.base, next: p.note}
	for attempt := 0; attempt < applyAttempts; attempt++ {
		var reembed []*evolvedNote
		err := e.h.Update(ctx, func(tx amem.Tx) error {
			reembed = nil
			if err := c.releaseIn(tx); err != nil {
				return err
			}
			cur, err := tx.Note(ns, id)
			if err != nil {
				return err
			}
			if cur.Content != p.base.Content || !cur.EventTime.Equal(p.base.EventTime) || gaveBack(p.base, cur) {
				e.log.Info("note edited during enrichment; plan dropped", "namespace", ns, "note", id)
				return p.usage.record(tx, ns, id, e.c.Now().UTC())
			}
			note, ok := rebase(self, cur, &reembed)
			if !ok {
				return errRetryApply
			}
			note.Links = cur.Links
			note.Enrichment = p.note.Enrichment
			note.UpdatedAt = note.Enrichment.At
			// A version is a change people can see; an enrichment that
			// changes no attribute (a re-enrichment) only records its
			// outcome, so every version number has its history row.
			changed := !amem.SameSnapshot(cur.Snapshot(), note.Snapshot())
			note.Version = cur.Version
			if changed {
				note.Version++
			}
			if err := tx.UpdateNote(note, cur.Version); err != nil {
				return err
			}
			if changed {
				if err := tx.AddVersion(amem.NewVersion(note, amem.ActorConstruct, "note construction", &cur)); err != nil {
					return err
				}
			}
			if err := tx.DeleteLinksFrom(ns, id); err != nil {
				return err
			}
			for _, l := range p.links {
				if err := tx.PutLink(ns, l); err != nil {
					if errors.Is(err, amem.ErrNotFound) {
						continue // the target was deleted meanwhile
					}
					return err
				}
			}
			for i := range p.evolved {
				if err := e.applyEvolution(tx, note, &p.evolved[i], &reembed); err != nil {
					return err
				}
			}
			if err := e.applySupersessions(tx, note, cur, p); err != nil {
				return err
			}
			if len(reembed) > 0 {
				return errRetryApply
			}
			if err := amem.RecordEvent(tx, note, amem.EventEnriched, e.c.Now()); err != nil {
				return err
			}
			return p.usage.record(tx, ns, id, note.UpdatedAt)
		})
		switch {
		case err == nil:
			c.committed()
			return nil
		case errors.Is(err, amem.ErrConflict) && !errors.Is(err, errClaimLost):
			// Another writer got in: read again and merge.
		case !errors.Is(err, errRetryApply):
			return err
		}
		// Enrichments that evolve the same neighbours collide again if
		// they retry in step; a random pause that grows lets one through.
		if err := sleepCtx(ctx, time.Duration(rand.Int64N(int64(attempt+1)*int64(2*time.Millisecond)))); err != nil {
			return err
		}
		// A merge onto a note's current state that leaves its text as it
		// is keeps the current vector (rebase started it from there).
		var texts []string
		var changed []*evolvedNote
		for _, ev := range reembed {
			if !e.sameVector(ev.shown, ev.next) {
				texts = append(texts, e.c.EmbedText(ev.next))
				changed = append(changed, ev)
			}
		}
		vecs, err := e.embed(ctx, texts)
		if err != nil {
			return err
		}
		for i, ev := range changed {
			ev.next.Embedding = vecs[i]
		}
	}
	return fmt.Errorf("note %s and its neighbours kept changing under the enrichment; it stays queued", id)
}

// gaveBack reports whether the caller gave an attribute of before back to
// the curator by now.
func gaveBack(before, now amem.Note) bool {
	return (before.CallerKeywords && !now.CallerKeywords) || (before.CallerContext && !now.CallerContext)
}

// applyAttempts bounds apply's retries: each is caused by another
// enrichment committing a change to one of the same notes in between.
// Measured with 4 writers evolving the same 10 neighbours (storetest's
// history test), 8 attempts without pauses did not always suffice.
const applyAttempts = 32

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errRetryApply = errors.New("a note changed: re-embed and retry")

// rebase returns ev's proposed state moved onto cur, the note's state now.
// If cur is the state ev was computed from, that is ev.next. Otherwise the
// change shown->next is merged onto cur (terms added are added, terms
// removed are removed, a rewritten context replaces cur's); if the result
// differs from ev.next, ev is updated and queued in reembed, and rebase
// reports false: the caller must retry after embedding it. Keywords or a
// context the caller wrote in cur (perhaps since ev was computed) stay as
// cur has them.
func rebase(ev *evolvedNote, cur amem.Note, reembed *[]*evolvedNote) (amem.Note, bool) {
	if cur.Version == ev.shown.Version {
		return ev.next, true
	}
	merged := cur.Clone()
	if !cur.CallerKeywords {
		merged.Keywords = merge3(ev.shown.Keywords, ev.next.Keywords, cur.Keywords)
	}
	merged.Tags = merge3(ev.shown.Tags, ev.next.Tags, cur.Tags)
	merged.CuratorTags = curatedTags(cur, merged.Tags)
	if ev.next.Context != ev.shown.Context && !cur.CallerContext {
		merged.Context = ev.next.Context
	}
	if amem.SameSnapshot(merged.Snapshot(), ev.next.Snapshot()) {
		merged.Embedding = ev.next.Embedding
		return merged, true
	}
	ev.shown, ev.next = cur, merged
	*reembed = append(*reembed, ev)
	return amem.Note{}, false
}

// applyEvolution writes one neighbour's evolution, rebased onto its
// current state.
func (e *Engine) applyEvolution(tx amem.Tx, by amem.Note, ev *evolvedNote, reembed *[]*evolvedNote) error {
	cur, err := tx.Note(by.Namespace, ev.shown.ID)
	if errors.Is(err, amem.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	next, ok := rebase(ev, cur, reembed)
	if !ok || amem.SameSnapshot(cur.Snapshot(), next.Snapshot()) {
		return nil
	}
	next.Links = cur.Links
	next.Enrichment = cur.Enrichment
	next.Version = cur.Version + 1
	next.UpdatedAt = by.UpdatedAt
	if err := tx.UpdateNote(next, cur.Version); err != nil {
		return err
	}
	reason := fmt.Sprintf("evolved by new note %s", by.ID)
	if ev.reason != "" {
		reason += ": " + ev.reason
	}
	if err := tx.AddVersion(amem.NewVersion(next, amem.ActorEvolve, reason, &cur)); err != nil {
		return err
	}
	return amem.RecordEvent(tx, next, amem.EventEvolved, e.c.Now())
}

// markFailed records a failed enrichment, when it is due again, and the
// tokens it spent, releasing the claim in the same transaction. A lost
// claim records only the tokens: the note's new claimant decides its
// state.
func (e *Engine) markFailed(ctx context.Context, c *claim, n amem.Note, cause error, spent usage) error {
	msg := cleanText(cause.Error(), 1024)
	now := e.c.Now().UTC()
	err := e.h.Update(ctx, func(tx amem.Tx) error {
		if err := c.releaseIn(tx); err != nil {
			return err
		}
		cur, err := tx.Note(n.Namespace, n.ID)
		if err != nil {
			return err
		}
		attempts := cur.Enrichment.Attempts + 1
		cur.Enrichment = amem.Enrichment{State: amem.EnrichFailed, Error: msg, Attempts: attempts, At: now,
			DueAt: e.c.retryAt(now, attempts, rand.Float64()*2-1)}
		if err := tx.UpdateNote(cur, cur.Version); err != nil {
			return err
		}
		return spent.record(tx, n.Namespace, n.ID, now)
	})
	if errors.Is(err, errClaimLost) {
		e.recordSpent(ctx, n, spent)
		return nil
	}
	if err == nil {
		c.committed()
		e.h.Advance(ctx, n.Namespace)
	}
	return err
}

func clamp01(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return math.Max(0, math.Min(1, x))
}

// Error is returned by Enrich when the curator (or an embedder call it
// needed) failed: the note is stored, searchable and marked failed.
type Error struct {
	NoteID string
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("enrich %s: %v", e.NoteID, e.Err) }
func (e *Error) Unwrap() error { return e.Err }
