package search

import (
	"fmt"

	"github.com/amem-dev/amem/internal/invalid"
)

// Profile is what hybrid search ranks by, for the shape of memory a
// namespace holds.
//
// The general profile suits any memory (facts, preferences, decisions,
// notes, dialogue): the vector and full-text rankings are read to Depth
// and their notes ordered by relevance (relevance.go), which weighs how
// close each note is to the query in meaning and in words.
//
// The conversation profile suits a namespace of dialogue turns
// ("Speaker: text"), where the answer to a question is often the reply
// to the turn the question matches: package search/conversation orders
// its candidates with the reply and feedback rankings and a learned
// ranker trained on LoCoMo conversations. On other memories these
// signals cost: the note written after a match is not its answer.
type Profile string

const (
	// ProfileAuto picks the conversation profile for a namespace at least
	// half of whose notes are turns ("Speaker: text"; at least two), and
	// the general profile for any other.
	ProfileAuto         Profile = "auto"
	ProfileGeneral      Profile = "general"
	ProfileConversation Profile = "conversation"
)

// ValidProfile checks a profile name; "" is auto.
func ValidProfile(p Profile) (Profile, error) {
	switch p {
	case "", ProfileAuto:
		return ProfileAuto, nil
	case ProfileGeneral, ProfileConversation:
		return p, nil
	}
	return "", invalid.Errorf("search profile %q; use %s, %s or %s", p, ProfileAuto, ProfileGeneral, ProfileConversation)
}

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

// ChooseProfile resolves want (valid, not "") for a namespace of notes
// notes, turns of them dialogue turns.
func ChooseProfile(want Profile, turns, notes int) ProfileInfo {
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

// Reason explains the choice in a sentence.
func (p ProfileInfo) Reason() string {
	if !p.Auto {
		return fmt.Sprintf("%s: set explicitly", p.Profile)
	}
	return fmt.Sprintf("%s: %d of %d notes are dialogue turns (\"Speaker: text\"); the conversation profile is chosen from half", p.Profile, p.Turns, p.Notes)
}
