package amem

import (
	"context"
	"fmt"
)

// Profile is what hybrid search ranks by, for the shape of memory a
// namespace holds.
//
// The general profile suits any memory (facts, preferences, decisions,
// notes, dialogue): the vector and full-text rankings are read to a
// fixed depth and their notes ordered by relevance (relevance.go), which
// weighs how close each note is to the query in meaning and in words.
//
// The conversation profile suits a namespace of dialogue turns
// ("Speaker: text"), where the answer to a question is often the reply
// to the turn the question matches: it adds the extra rankings
// (rankings.go: the reply and feedback rankings, with Options' weights)
// and re-orders the candidates by the learned ranker (Options.Ranker),
// trained on LoCoMo conversations. On other memories these signals
// cost: the note written after a match is not its answer.
type Profile string

const (
	// ProfileAuto picks the conversation profile for a namespace at least
	// half of whose notes are turns ("Speaker: text"; at least two), and
	// the general profile for any other.
	ProfileAuto         Profile = "auto"
	ProfileGeneral      Profile = "general"
	ProfileConversation Profile = "conversation"
)

// ProfileInfo says which profile a namespace's searches use, and why.
type ProfileInfo struct {
	Profile Profile `json:"profile"`
	// Auto is set when the profile was chosen by what the namespace
	// holds (ProfileAuto), not set by the options or the request.
	Auto bool `json:"auto"`
	// Turns of the namespace's Notes are dialogue turns.
	Turns int `json:"turns"`
	Notes int `json:"notes"`
}

// Reason explains the choice in a sentence.
func (p ProfileInfo) Reason() string {
	if !p.Auto {
		return fmt.Sprintf("%s: set explicitly", p.Profile)
	}
	return fmt.Sprintf("%s: %d of %d notes are dialogue turns (\"Speaker: text\"); the conversation profile is chosen from half", p.Profile, p.Turns, p.Notes)
}

// validProfile checks a profile name; "" is auto.
func validProfile(p Profile) (Profile, error) {
	switch p {
	case "", ProfileAuto:
		return ProfileAuto, nil
	case ProfileGeneral, ProfileConversation:
		return p, nil
	}
	return "", invalidf("search profile %q; use %s, %s or %s", p, ProfileAuto, ProfileGeneral, ProfileConversation)
}

// profileOf is the profile want resolves to in s (its lock not held).
func (s *space) profileOf(want Profile) ProfileInfo {
	s.mu.RLock()
	turns, notes := s.lex.WithTraits(uint8(isTurn)), s.lex.Len()
	s.mu.RUnlock()
	info := ProfileInfo{Profile: want, Turns: turns, Notes: notes}
	if want != ProfileAuto {
		return info
	}
	info.Auto = true
	info.Profile = ProfileGeneral
	if turns >= 2 && 2*turns >= notes {
		info.Profile = ProfileConversation
	}
	return info
}

// SearchProfile says which profile a hybrid search of the namespace
// would use now, with the options' profile (Options.Profile) or want if
// it is set, and why.
func (m *Memory) SearchProfile(ctx context.Context, ns string, want Profile) (ProfileInfo, error) {
	if err := ValidNamespace(ns); err != nil {
		return ProfileInfo{}, err
	}
	if want == "" {
		want = m.opts.Profile
	}
	want, err := validProfile(want)
	if err != nil {
		return ProfileInfo{}, err
	}
	s, err := m.fresh(ctx, ns)
	if err != nil {
		return ProfileInfo{}, err
	}
	return s.profileOf(want), nil
}
