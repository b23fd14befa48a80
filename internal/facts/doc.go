// Package facts reads short memories as facts about a subject, enough to
// tell when a newer memory makes an older one stop being true:
// Supersedes("I'm allergic to penicillin.", "I'm not allergic to
// penicillin after all.") is true, with a reason an engineer can check.
//
// The rules are offline (word lists, value slots and the two notes'
// cosine, no model call), and they prefer silence: a note wrongly marked
// as no longer true hides a fact, which costs more than a missed update.
// eval/testdata/supersede holds the labelled pairs they are measured on:
// pairs written as updates, and pairs the offline curator was really shown
// in a store. The rules (v6) put precision first: on round 5, a fresh
// test written, collected and labelled before it was scored, they are
// right on 0.93 of the pairs they mark (26 of 28), and on 0.97 of the
// written pairs' held-out half (2-core VM, 2026-12-06 06:18 UTC), so the
// product's offline curator calls them with use-lite (amem-eval
// supersede; docs/EVALUATION.md, Round 5, has the figures).
//
// Nothing here holds state; every function is safe for concurrent use.
package facts
