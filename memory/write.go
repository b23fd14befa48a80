package memory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/amem-dev/amem"
)

// Add stores a note and, unless Options.Enrich.Async is set, enriches it. The note
// is durable and searchable once the first transaction commits; if the
// curator then fails, Add still returns the stored note, marked failed,
// and a nil error (Enrich retries it); if ctx ends during enrichment, the
// stored note comes back pending.
func (m *Memory) Add(ctx context.Context, req amem.AddRequest) (amem.Note, error) {
	notes, err := m.AddBatch(ctx, []amem.AddRequest{req})
	if err != nil {
		return amem.Note{}, unwrapBatch(err)
	}
	return notes[0], nil
}

// AddBatch stores several notes in one transaction: all of them or, on any
// error (an invalid request is reported with its index), none. Then each
// is enriched as Add would, in order. The notes come back in request
// order. Once stored, the notes are returned without error even if
// enrichment can't run (ctx ends, the store fails): they stay pending, to
// be enriched by RunWorkers or EnrichPending.
func (m *Memory) AddBatch(ctx context.Context, reqs []amem.AddRequest) ([]amem.Note, error) {
	ctx, span := m.startSpan(ctx, "amem.Add", attrBatch.Int(len(reqs)))
	notes, err := m.addBatch(ctx, reqs)
	if len(notes) > 0 {
		span.SetAttributes(attrNamespace.String(notes[0].Namespace))
		if len(notes) == 1 {
			span.SetAttributes(attrNoteID.String(notes[0].ID))
		}
	}
	endSpan(span, err)
	return notes, err
}

func (m *Memory) addBatch(ctx context.Context, reqs []amem.AddRequest) ([]amem.Note, error) {
	if len(reqs) == 0 {
		return nil, invalidf("no notes to add")
	}
	if len(reqs) > amem.MaxBatch {
		return nil, invalidf("%d notes in one batch, at most %d", len(reqs), amem.MaxBatch)
	}
	notes := make([]amem.Note, len(reqs))
	var nss []string
	for i, req := range reqs {
		n, err := m.newNote(req)
		if err != nil {
			return nil, &batchError{i, err}
		}
		notes[i] = n
		nss = append(nss, n.Namespace)
	}
	if err := m.embedNotes(ctx, notes); err != nil {
		return nil, err
	}
	err := m.update(ctx, func(tx amem.Tx) error {
		for i, n := range notes {
			if err := m.insertNew(tx, n, amem.ActorUser, "added"); err != nil {
				return &batchError{i, err}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	m.k.Advance(ctx, nss...)
	m.enrichNew(ctx, notes, func(i int) bool { return reqs[i].Wait })
	return notes, nil
}

// insertNew stores a new note, embedded, with its first version, inside
// a write.
func (m *Memory) insertNew(tx amem.Tx, n amem.Note, actor amem.Actor, reason string) error {
	if err := m.ensureNamespace(tx, n.Namespace); err != nil {
		return err
	}
	if err := tx.InsertNote(n); err != nil {
		return err
	}
	if err := tx.AddVersion(amem.NewVersion(n, actor, reason, nil)); err != nil {
		return err
	}
	return m.recordEvent(tx, n, amem.EventCreated)
}

// enrichNew enriches notes just stored, in place, in order: at once when
// the Memory is not Async or wait(i) says so, else by waking the workers.
// Failures are logged, not returned: the notes are stored, and failing
// now would make a caller add them again. They stay pending for the
// workers or a retry.
func (m *Memory) enrichNew(ctx context.Context, notes []amem.Note, wait func(i int) bool) {
	woken := false
	for i, n := range notes {
		notes[i].Embedding = nil
		if n.Enrichment.State != amem.EnrichPending {
			continue
		}
		if !m.opts.Enrich.Async || (wait != nil && wait(i)) {
			done, err := m.enrichAfterWrite(ctx, n.Namespace, n.ID)
			if err == nil {
				notes[i] = done
				continue
			}
			m.log.Warn("enrichment after add", "namespace", n.Namespace, "note", n.ID, "err", err)
		}
		if !woken {
			m.enr.Notify()
			woken = true
		}
	}
}

// batchError is an error of one request of a batch.
type batchError struct {
	index int
	err   error
}

func (e *batchError) Error() string { return fmt.Sprintf("note %d: %v", e.index, e.err) }
func (e *batchError) Unwrap() error { return e.err }

// unwrapBatch drops the batch index from an error of a one-note batch.
func unwrapBatch(err error) error {
	var be *batchError
	if errors.As(err, &be) && err == error(be) {
		return be.err
	}
	if errors.As(err, &be) {
		// A store's verdict on its health, wrapped around the batch's
		// error, stays findable (a server answers it with 503).
		var he *amem.HealthError
		if errors.As(err, &he) {
			return &amem.HealthError{Reason: he.Reason, Err: be.err}
		}
		return fmt.Errorf("add: %w", be.err)
	}
	return err
}

// enrichAfterWrite enriches a note just written: a curator failure is
// recorded on the note, not returned, since the write itself succeeded.
func (m *Memory) enrichAfterWrite(ctx context.Context, ns, id string) (amem.Note, error) {
	n, err := m.enr.EnrichNew(ctx, ns, id)
	var ee *EnrichError
	if errors.As(err, &ee) {
		return n, nil
	}
	return n, err
}

func (m *Memory) newNote(req amem.AddRequest) (amem.Note, error) {
	ns := req.Namespace
	if ns == "" {
		ns = amem.DefaultNamespace
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return amem.Note{}, err
	}
	if err := m.validContent(req.Content); err != nil {
		return amem.Note{}, err
	}
	kw, err := amem.ValidTerms("keywords", req.Keywords, amem.MaxKeywords)
	if err != nil {
		return amem.Note{}, err
	}
	tags, err := amem.ValidTerms("tags", req.Tags, amem.MaxTags)
	if err != nil {
		return amem.Note{}, err
	}
	if err := amem.ValidMetadata(req.Metadata); err != nil {
		return amem.Note{}, err
	}
	if err := amem.ValidContext(req.Context); err != nil {
		return amem.Note{}, err
	}
	if !req.EventTime.IsZero() {
		if err := amem.ValidEventTime(req.EventTime); err != nil {
			return amem.Note{}, err
		}
	}
	now := m.opts.Now().UTC()
	ev := req.EventTime
	if ev.IsZero() {
		ev = now
	}
	enr := amem.Enrichment{State: amem.EnrichPending, DueAt: now}
	if m.opts.Curator == nil {
		enr = amem.Enrichment{State: amem.EnrichDone}
	}
	var md map[string]string
	if len(req.Metadata) > 0 {
		md = maps.Clone(req.Metadata)
	}
	return amem.Note{
		ID:         m.ids.Next(now),
		Namespace:  ns,
		Content:    req.Content,
		EventTime:  ev.UTC(),
		IngestTime: now,
		UpdatedAt:  now,
		Keywords:   kw,
		Tags:       tags,
		Context:    req.Context,
		Metadata:   md,
		// What the caller wrote is the caller's; an empty field is the
		// curator's to fill.
		CallerKeywords: len(kw) > 0,
		CallerContext:  req.Context != "",
		Links:          []amem.Link{},
		Version:        1,
		Enrichment:     enr,
	}, nil
}

// Update changes a note, writes a version and re-embeds it. Keywords or a
// context given that differ from the note's become the caller's
// (Note.CallerKeywords, Note.CallerContext); the same value changes
// nothing. GiveBack hands them back to the curator. A
// content edit also clears the curator-written keywords and context (the
// caller's stay) and re-enriches the note, replacing the links it chose;
// so does giving an attribute back.
func (m *Memory) Update(ctx context.Context, ns, id string, req amem.UpdateRequest) (amem.Note, error) {
	if err := validID(id); err != nil {
		return amem.Note{}, err
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return amem.Note{}, err
	}
	if req.Content != nil {
		if err := m.validContent(*req.Content); err != nil {
			return amem.Note{}, err
		}
	}
	if req.EventTime != nil {
		if err := amem.ValidEventTime(*req.EventTime); err != nil {
			return amem.Note{}, err
		}
	}
	var kw, tags []string
	var err error
	if req.Keywords != nil {
		if kw, err = amem.ValidTerms("keywords", *req.Keywords, amem.MaxKeywords); err != nil {
			return amem.Note{}, err
		}
	}
	if req.Tags != nil {
		if tags, err = amem.ValidTerms("tags", *req.Tags, amem.MaxTags); err != nil {
			return amem.Note{}, err
		}
	}
	if req.Context != nil {
		if err := amem.ValidContext(*req.Context); err != nil {
			return amem.Note{}, err
		}
	}
	if req.Metadata != nil {
		if err := amem.ValidMetadata(req.Metadata); err != nil {
			return amem.Note{}, err
		}
	}
	if err := validGiveBack(req); err != nil {
		return amem.Note{}, err
	}
	apply := func(n amem.Note) amem.Note {
		n = n.Clone()
		// A value the caller gives as the note already has it is no claim:
		// a form that sends every field (the UI's edit form sends the
		// context with the content) must not take over the curator's
		// context, which then stays the curator's to rewrite for the new
		// content.
		claimKeywords := req.Keywords != nil && !slices.Equal(kw, n.Keywords)
		claimContext := req.Context != nil && *req.Context != n.Context
		reenrich := false
		if req.Content != nil && *req.Content != n.Content {
			n.Content = *req.Content
			if !n.CallerKeywords {
				n.Keywords = []string{}
			}
			if !n.CallerContext {
				n.Context = ""
			}
			reenrich = true
		}
		for _, a := range req.GiveBack {
			switch a {
			case amem.AttributeKeywords:
				reenrich = reenrich || n.CallerKeywords
				n.CallerKeywords = false
			case amem.AttributeContext:
				reenrich = reenrich || n.CallerContext
				n.CallerContext = false
			}
		}
		if reenrich && m.opts.Curator != nil {
			n.Enrichment = amem.Enrichment{State: amem.EnrichPending, Attempts: n.Enrichment.Attempts, At: n.Enrichment.At,
				DueAt: m.opts.Now().UTC()}
		}
		if req.EventTime != nil {
			n.EventTime = req.EventTime.UTC()
		}
		if claimKeywords {
			n.Keywords, n.CallerKeywords = kw, true
		}
		if req.Tags != nil {
			n.Tags, n.CuratorTags = tags, nil // the caller's now, every one
		}
		if claimContext {
			n.Context, n.CallerContext = *req.Context, true
		}
		if req.Metadata != nil {
			n.Metadata = maps.Clone(req.Metadata)
			if len(n.Metadata) == 0 {
				n.Metadata = nil
			}
		}
		return n
	}
	reason := req.Reason
	var relinkFn func(amem.Tx, amem.Note, amem.Note) error
	if req.Validity != nil {
		vu, err := m.resolveValidity(ctx, ns, id, *req.Validity)
		if err != nil {
			return amem.Note{}, err
		}
		others := apply
		apply = func(n amem.Note) amem.Note { return vu.apply(others(n)) }
		relinkFn = relink
		if reason == "" {
			reason = vu.reason()
		}
	}
	if reason == "" {
		reason = "updated"
	}
	n, err := m.changeWith(ctx, ns, id, amem.ActorUser, reason, apply, relinkFn)
	if err != nil {
		return amem.Note{}, fmt.Errorf("update %s: %w", id, err)
	}
	if n.Enrichment.State == amem.EnrichPending {
		if m.opts.Enrich.Async {
			m.enr.Notify()
			return n, nil
		}
		return m.enrichAfterWrite(ctx, ns, id)
	}
	return n, nil
}

// change applies fn to a note as one versioned, re-embedded write. The
// embedding is computed outside any transaction; the write is
// compare-and-set on the version read, so if the note changed meanwhile
// (here or in another process) the change is computed again on the new
// state.
func (m *Memory) change(ctx context.Context, ns, id string, actor amem.Actor, reason string, fn func(amem.Note) amem.Note) (amem.Note, error) {
	return m.changeWith(ctx, ns, id, actor, reason, fn, nil)
}

// changeWith is change that also runs also, when set, in the write's
// transaction with the note before and after.
func (m *Memory) changeWith(ctx context.Context, ns, id string, actor amem.Actor, reason string, fn func(amem.Note) amem.Note,
	also func(tx amem.Tx, cur, next amem.Note) error) (amem.Note, error) {
	for attempt := 0; ; attempt++ {
		cur, err := m.Get(ctx, ns, id)
		if err != nil {
			return amem.Note{}, err
		}
		next := fn(cur)
		if amem.SameSnapshot(cur.Snapshot(), next.Snapshot()) && next.Enrichment == cur.Enrichment && next.CallerValidity == cur.CallerValidity {
			return cur, nil
		}
		// An edit of what is not embedded (metadata, event time, or a term
		// the EmbedText leaves out) keeps the vector.
		if m.sameVector(cur, next) {
			next.Embedding = slices.Clone(cur.Embedding)
		} else {
			vecs, err := m.embed(ctx, []string{m.opts.EmbedText(next)})
			if err != nil {
				return amem.Note{}, err
			}
			next.Embedding = vecs[0]
		}
		next.Version = cur.Version + 1
		next.UpdatedAt = m.opts.Now().UTC()
		err = m.update(ctx, func(tx amem.Tx) error {
			if err := tx.UpdateNote(next, cur.Version); err != nil {
				return err
			}
			if err := tx.AddVersion(amem.NewVersion(next, actor, reason, &cur)); err != nil {
				return err
			}
			if also != nil {
				if err := also(tx, cur, next); err != nil {
					return err
				}
			}
			return m.recordEvent(tx, next, amem.EventUpdated)
		})
		if err == nil {
			m.k.Advance(ctx, ns)
			return m.Get(ctx, ns, id)
		}
		if !errors.Is(err, amem.ErrConflict) {
			return amem.Note{}, err
		}
		if attempt == 5 {
			return amem.Note{}, fmt.Errorf("note %s kept changing under the write; try again: %w", id, err)
		}
	}
}

// Delete removes a note, every link touching it and its history: from
// search, the indexes and every read of notes at once, and into the trash
// (Trash), where they are kept for Options.TrashFor and can be restored.
// Over a store without amem.Trasher, or with the trash off, it deletes for
// good, as Purge does. Each Delete also deletes for good the namespace's
// notes whose time in the trash is up.
func (m *Memory) Delete(ctx context.Context, ns, id string) error {
	if err := validID(id); err != nil {
		return err
	}
	if err := amem.ValidNamespace(ns); err != nil {
		return err
	}
	err := m.update(ctx, func(tx amem.Tx) error {
		// The event carries the last version, so a receiver can order it
		// after the note's other events.
		tr, keep := m.trasher(tx)
		if keep {
			// First, so that the note read next is the one deleted (see
			// amem.Trasher).
			if err := m.expireIn(tr, ns); err != nil {
				return err
			}
		}
		cur, err := tx.Note(ns, id)
		if err != nil {
			return err
		}
		return m.deleteIn(tx, tr, keep, cur)
	})
	if err != nil {
		return err
	}
	m.k.Advance(ctx, ns)
	return nil
}

// deleteIn deletes cur in tx, into the trash tr if keep, and records its
// deleted event: Delete's and retention's deletion.
func (m *Memory) deleteIn(tx amem.Tx, tr amem.Trasher, keep bool, cur amem.Note) error {
	if keep {
		vs, err := tx.Versions(cur.Namespace, cur.ID)
		if err != nil {
			return err
		}
		if err := tr.PutTrashed(amem.Trashed{Note: cur, Versions: vs, DeletedAt: m.opts.Now().UTC()}); err != nil {
			return err
		}
	}
	if err := tx.DeleteNote(cur.Namespace, cur.ID); err != nil {
		return err
	}
	if err := m.unsupersede(tx, cur); err != nil {
		return err
	}
	return m.recordEvent(tx, cur, amem.EventDeleted)
}

// Restore brings a note's content, time, keywords, tags, context and
// metadata back to an earlier version, as a new version. Links are kept.
func (m *Memory) Restore(ctx context.Context, ns, id string, version int) (amem.Note, error) {
	vs, err := m.History(ctx, ns, id)
	if err != nil {
		return amem.Note{}, err
	}
	i := slices.IndexFunc(vs, func(v amem.Version) bool { return v.Version == version })
	if i < 0 {
		return amem.Note{}, fmt.Errorf("%w: note %s has no version %d (it has 1-%d)", amem.ErrNotFound, id, version, len(vs))
	}
	snap := vs[i].Snapshot
	return m.change(ctx, ns, id, amem.ActorRestore, fmt.Sprintf("restored to version %d", version), func(n amem.Note) amem.Note {
		n = n.Clone()
		s := amem.Note{Keywords: snap.Keywords, Tags: snap.Tags, CuratorTags: snap.CuratorTags, Metadata: snap.Metadata}.Clone()
		n.Content, n.EventTime, n.Context = snap.Content, snap.EventTime, snap.Context
		n.Keywords, n.Tags, n.CuratorTags, n.Metadata = s.Keywords, s.Tags, s.CuratorTags, s.Metadata
		n.CallerKeywords, n.CallerContext = snap.CallerKeywords, snap.CallerContext
		return n
	})
}

// validGiveBack checks UpdateRequest.GiveBack: known attributes, none
// also set by the same request (the caller can't both write one and hand
// it to the curator).
func validGiveBack(req amem.UpdateRequest) error {
	for _, a := range req.GiveBack {
		if err := amem.ValidAttribute(a); err != nil {
			return err
		}
		if (a == amem.AttributeKeywords && req.Keywords != nil) || (a == amem.AttributeContext && req.Context != nil) {
			return invalidf("%s is both set and given back to the curator; do one", a)
		}
	}
	return nil
}
