// Package conversation is hybrid search's conversation profile: what
// suits a namespace of dialogue turns ("Speaker: text") and nothing else.
// In a conversation the answer to a question is often the reply to the
// turn the question matches, so the profile fuses the vector and
// full-text rankings by reciprocal rank with three more rankings derived
// from their fusion (rankings.go: the replies, keyword feedback, dense
// feedback), then re-orders the first candidates by a learned ranker
// (ranker.go, features.go, question.go) trained on LoCoMo conversations.
// It also reads, when a note is indexed, what those features need of its
// text (fields.go): its speaker, the names it mentions and its traits.
//
// Package search hands it the two rankings as an Order (Orderer.Order);
// what it reads of the namespace beyond them comes through Source.
package conversation
