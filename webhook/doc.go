// Package webhook tells other services when a note changes. A namespace's
// webhooks (created by an admin key over the HTTP API) each receive a
// signed JSON POST for every note event of that namespace they take:
// created, updated, enriched, evolved, deleted, restored.
//
// Delivery is at least once. Memory queues each event in the store's
// outbox in the transaction that makes the change (amem.EventRecorder),
// so an acknowledged write always has its event and a crash loses none.
// A Worker claims due events with a lease (two servers on one database
// don't routinely send the same event twice), POSTs them, deletes what a
// receiver acknowledged with a 2xx, and retries the rest with exponential
// backoff and jitter until Options.MaxAge, after which an event is kept
// as failed and counted on its webhook. A receiver deduplicates by the
// Amem-Event-Id header and checks Amem-Signature with Verify.
//
// Events of one note reach one webhook in order: an event is not sent
// while an earlier one of the same note waits for a retry. Events of
// different notes may arrive in any order.
package webhook
