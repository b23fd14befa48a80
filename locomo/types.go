package locomo

import "time"

// Conversation is one LoCoMo sample: a long two-person dialogue split into
// dated sessions, plus the questions asked about it.
type Conversation struct {
	SampleID string // e.g. "conv-26"
	SpeakerA string
	SpeakerB string
	// Sessions in numeric order of their key (session_1, session_2, ...,
	// session_10). Only sessions that have a turn list are included: a
	// session_N_date_time without a session_N is ignored.
	Sessions []Session
	// QA in file order; Question.Index is the position in this slice.
	QA []Question
	// Observations are the short third-person facts the data gives for
	// each session ("observation"), in session order and, within a
	// session, in the order of the file's speakers and facts.
	Observations []Observation
}

// Observation is one fact of a session_N_observation: what an agent
// would keep of the conversation as a memory (Mem0-style), with the turns
// it comes from.
type Observation struct {
	Session int       // Session.Index
	Speaker string    // the speaker the fact is filed under
	Text    string    // e.g. "Joanna's favorite movie genres are dramas and romcoms."
	Cites   []string  // the dia_ids it cites, cleaned as Question.Evidence is
	Time    time.Time // the session's DateTime
}

// Session is one dated conversation session.
type Session struct {
	Index       int       // N of the session_N key (1-based, as in the file)
	DateTime    time.Time // parsed session_N_date_time, in UTC (the data has no zone)
	RawDateTime string    // session_N_date_time as written, e.g. "1:56 pm on 8 May, 2023"
	Turns       []Turn
}

// Turn is one utterance of a session.
type Turn struct {
	DiaID        string // e.g. "D1:3" (session 1, turn 3)
	Speaker      string
	Text         string
	ImageCaption string    // the BLIP caption of a shared image ("blip_caption"), if any
	Session      int       // Session.Index of the session holding the turn
	Time         time.Time // the session's DateTime
}

// Content renders the turn as a single line of text for indexing and
// prompting: "Speaker: text", followed by " (image: caption)" when the turn
// carries an image caption. For example:
//
//	Caroline: Here's a pic from last week! (image: a photo of a family posing for a picture in a yard)
func (t Turn) Content() string {
	s := t.Speaker + ": " + t.Text
	if t.ImageCaption != "" {
		s += " (image: " + t.ImageCaption + ")"
	}
	return s
}

// Question is one QA item of a conversation.
type Question struct {
	Index    int    // position in the conversation's qa list
	Question string // the question text
	// Answer is the gold answer as text. Numeric answers in the JSON (such as
	// 2022) are converted to their literal text ("2022"); a list answer is
	// joined with ", ". Empty for most adversarial (category 5) questions.
	Answer string
	// AdversarialAnswer is the tempting wrong answer of a category 5
	// question ("adversarial_answer"); the expected output is that the
	// information is not mentioned.
	AdversarialAnswer string
	// Evidence lists the dia_ids supporting the answer, cleaned: entries are
	// split on ';', ',' and whitespace, ids absent from the conversation are
	// dropped and duplicates removed (first occurrence kept). May be empty.
	Evidence []string
	Category int // 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial
}

// Official LoCoMo question categories (the mapping of the LoCoMo paper and
// repository, also used by the A-Mem paper).
const (
	CategoryMultiHop    = 1
	CategoryTemporal    = 2
	CategoryOpenDomain  = 3
	CategorySingleHop   = 4
	CategoryAdversarial = 5
)

// CategoryName returns the official name of a LoCoMo question category:
// 1 "multi-hop", 2 "temporal", 3 "open-domain", 4 "single-hop",
// 5 "adversarial", and "unknown" for anything else.
func CategoryName(c int) string {
	switch c {
	case CategoryMultiHop:
		return "multi-hop"
	case CategoryTemporal:
		return "temporal"
	case CategoryOpenDomain:
		return "open-domain"
	case CategorySingleHop:
		return "single-hop"
	case CategoryAdversarial:
		return "adversarial"
	}
	return "unknown"
}

// Turns returns all turns of the conversation in session order.
func (c *Conversation) Turns() []Turn {
	n := 0
	for _, s := range c.Sessions {
		n += len(s.Turns)
	}
	out := make([]Turn, 0, n)
	for _, s := range c.Sessions {
		out = append(out, s.Turns...)
	}
	return out
}

// Turn returns the turn with the given dia_id, if any.
func (c *Conversation) Turn(diaID string) (Turn, bool) {
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			if t.DiaID == diaID {
				return t, true
			}
		}
	}
	return Turn{}, false
}
