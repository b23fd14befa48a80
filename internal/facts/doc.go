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
// in a store, on which they are right on 0.69 of the pairs they mark
// (0.85 on a fresh round), so the product's curator does not call them
// (amem-eval supersede; docs/EVALUATION.md has the figures).
//
// Nothing here holds state; every function is safe for concurrent use.
package facts
