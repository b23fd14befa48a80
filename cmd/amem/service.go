package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/enrich"
	"github.com/amem-dev/amem/kernel"
	"github.com/amem-dev/amem/local"
	"github.com/amem-dev/amem/memory"
	"github.com/amem-dev/amem/webhook"
)

// service is a long-running memory (amem serve, amem mcp): Add returns
// once a note is durable and searchable, and background workers enrich it.
type service struct {
	mem    *memory.Memory
	store  local.Store
	stop   context.CancelFunc
	done   sync.WaitGroup
	logger *slog.Logger
	// onEnrich, if set before start, sees every enrichment (metrics).
	onEnrich func(amem.Note, error)
}

// openService opens the memory with asynchronous enrichment and starts the
// workers.
func (a *app) openService(logger *slog.Logger, workers memory.WorkerOptions) (*service, error) {
	s, err := a.openIdle(logger)
	if err != nil {
		return nil, err
	}
	s.start(workers)
	return s, nil
}

// openIdle opens the memory with asynchronous enrichment; start runs the
// workers.
func (a *app) openIdle(logger *slog.Logger) (*service, error) {
	if err := a.checkLLM(false, logger); err != nil {
		return nil, err
	}
	if err := a.checkDB(false); err != nil {
		return nil, err
	}
	s := &service{stop: func() {}, logger: logger}
	cfg, err := a.configFor(a.ns(), "")
	if err != nil {
		return nil, err
	}
	cfg.Log, cfg.Logger = a.stderr, logger
	cfg.Options = memory.Options{TrashFor: a.trashFor, Indexes: kernel.Options{ApproximateFrom: a.approximateFrom},
		Enrich: enrich.Options{Async: true, OnEnrich: s.enriched, ClaimLease: a.claimLease, RestatementSimilarity: a.Restatement}}
	mem, st, err := local.OpenWithStore(a.ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.mem, s.store = mem, st
	return s, nil
}

// enriched forwards an enrichment to onEnrich, which is set after the
// memory is open (the HTTP API that counts needs the memory first) but
// before anything can be enriched.
func (s *service) enriched(n amem.Note, err error) {
	if s.onEnrich != nil {
		s.onEnrich(n, err)
	}
}

// startWebhooks delivers the webhooks' events until Close (amem serve:
// the process whose API manages them).
func (s *service) startWebhooks(opts webhook.Options) error {
	opts.Logger = s.logger
	w, err := webhook.NewWorker(s.store, &opts)
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	prev := s.stop
	s.stop = func() { prev(); stop() }
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		_ = w.Run(ctx) // ends only with ctx; store errors are logged and retried
	}()
	return nil
}

// start runs the enrichment workers until Close.
func (s *service) start(workers memory.WorkerOptions) {
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		if err := s.mem.RunWorkers(ctx, workers); err != nil && !errors.Is(err, context.Canceled) {
			s.logger.Error("enrichment workers stopped", "err", err)
		}
	}()
}

// Close stops taking new enrichment work, lets the enrichments in flight
// finish, then closes the memory. Notes still pending stay queued in the
// store for the next start.
func (s *service) Close() error {
	s.stop()
	s.done.Wait()
	return s.mem.Close()
}
