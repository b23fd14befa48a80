package locomo

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const tinyJSON = `[
 {
  "sample_id": "conv-x",
  "conversation": {
   "speaker_a": "Ann",
   "speaker_b": "Bob",
   "session_10_date_time": "9:05 am on 1 January, 2024",
   "session_10": [{"speaker": "Ann", "dia_id": "D10:1", "text": "Happy new year!"}],
   "session_8_date_time": "1:56 pm on 8 May, 2023",
   "session_8": [
    {"speaker": "Ann", "dia_id": "D8:5", "text": "Look at this."},
    {"speaker": "Bob", "dia_id": "D8:6", "text": "Nice sunset!", "img_url": ["http://x/y.jpg"],
     "blip_caption": "a photo of a sunset", "query": "sunset", "re-download": true}
   ],
   "session_9_date_time": "12:09 am on 13 September, 2023",
   "session_9": [{"speaker": "Bob", "dia_id": "D9:17", "text": "Painted another one."}],
   "session_11_date_time": "1:00 pm on 2 January, 2024"
  },
  "qa": [
   {"question": "When?", "answer": 2022, "evidence": ["D8:6; D9:17", "D10:1", "D8:6", "d10:01", "D99:1", "D"], "category": 2},
   {"question": "What did Bob paint?", "adversarial_answer": "a sunrise", "evidence": [], "category": 5},
   {"question": "How many?", "answer": 3.5, "evidence": ["D8:5"], "category": 1},
   {"question": "Which?", "answer": ["a", "b"], "category": 4}
  ],
  "observation": {}, "session_summary": {}, "event_summary": {}
 }
]`

func TestParseTiny(t *testing.T) {
	convs, err := Parse(strings.NewReader(tinyJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 {
		t.Fatalf("got %d conversations, want 1", len(convs))
	}
	c := convs[0]
	if c.SampleID != "conv-x" || c.SpeakerA != "Ann" || c.SpeakerB != "Bob" {
		t.Errorf("header = %q %q %q", c.SampleID, c.SpeakerA, c.SpeakerB)
	}
	// Numeric order, and session_11 (a date without turns) left out.
	var idx []int
	for _, s := range c.Sessions {
		idx = append(idx, s.Index)
	}
	if want := []int{8, 9, 10}; !reflect.DeepEqual(idx, want) {
		t.Errorf("session order = %v, want %v", idx, want)
	}
	s9 := c.Sessions[1]
	if want := time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC); !s9.DateTime.Equal(want) || s9.RawDateTime != "12:09 am on 13 September, 2023" {
		t.Errorf("session 9 date = %v (%q), want %v", s9.DateTime, s9.RawDateTime, want)
	}
	turn, ok := c.Turn("D8:6")
	if !ok {
		t.Fatal("D8:6 not found")
	}
	want := Turn{DiaID: "D8:6", Speaker: "Bob", Text: "Nice sunset!", ImageCaption: "a photo of a sunset",
		Session: 8, Time: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)}
	if !reflect.DeepEqual(turn, want) {
		t.Errorf("turn D8:6 = %+v, want %+v", turn, want)
	}
	if got := turn.Content(); got != "Bob: Nice sunset! (image: a photo of a sunset)" {
		t.Errorf("Content() = %q", got)
	}
	if got := c.Sessions[0].Turns[0].Content(); got != "Ann: Look at this." {
		t.Errorf("Content() = %q", got)
	}
	if n := len(c.Turns()); n != 4 {
		t.Errorf("Turns() has %d turns, want 4", n)
	}

	wantQA := []Question{
		{Index: 0, Question: "When?", Answer: "2022", Evidence: []string{"D8:6", "D9:17", "D10:1"}, Category: 2},
		{Index: 1, Question: "What did Bob paint?", AdversarialAnswer: "a sunrise", Category: 5},
		{Index: 2, Question: "How many?", Answer: "3.5", Evidence: []string{"D8:5"}, Category: 1},
		{Index: 3, Question: "Which?", Answer: "a, b", Category: 4},
	}
	if !reflect.DeepEqual(c.QA, wantQA) {
		t.Errorf("QA =\n%+v\nwant\n%+v", c.QA, wantQA)
	}
}

func TestParseErrors(t *testing.T) {
	conv := func(body string) string {
		return `[{"sample_id": "conv-e", "conversation": {"speaker_a": "A", "speaker_b": "B", ` + body + `}, "qa": []}]`
	}
	turn := `[{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]`
	cases := []struct {
		name, in string
		want     []string // substrings of the error
	}{
		{"not json", `{`, []string{"decode"}},
		{"not a list", `{"sample_id": "x"}`, []string{"decode"}},
		{"trailing data", `[] []`, []string{"trailing"}},
		{"missing date", conv(`"session_1": ` + turn), []string{"conv-e", "session_1", "missing session_1_date_time"}},
		{"bad date", conv(`"session_3": ` + turn + `, "session_3_date_time": "25:00 pm on 8 May, 2023"`), []string{"conv-e", "session_3", "25:00 pm"}},
		{"turns not a list", conv(`"session_1": 5, "session_1_date_time": "1:00 pm on 1 May, 2023"`), []string{"conv-e", "session_1"}},
		{"same session twice", conv(`"session_1": [], "session_01": [], "session_1_date_time": "1:00 pm on 1 May, 2023", "session_01_date_time": "1:00 pm on 1 May, 2023"`), []string{"same session"}},
		{"bad category", `[{"sample_id": "c", "conversation": {}, "qa": [{"question": "q", "category": "x"}]}]`, []string{"qa[0]", "category"}},
		{"no conversation", `[{"sample_id": "c"}]`, []string{"conversation c"}},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.in))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}

func TestParseDateTime(t *testing.T) {
	d := func(y int, m time.Month, day, h, min int) time.Time {
		return time.Date(y, m, day, h, min, 0, 0, time.UTC)
	}
	good := []struct {
		in   string
		want time.Time
	}{
		{"1:56 pm on 8 May, 2023", d(2023, 5, 8, 13, 56)},
		{"10:37 am on 27 June, 2023", d(2023, 6, 27, 10, 37)},
		{"12:09 am on 13 September, 2023", d(2023, 9, 13, 0, 9)},
		{"12:30 pm on 1 January, 2024", d(2024, 1, 1, 12, 30)},
		{"11:01 am on 17 December, 2022", d(2022, 12, 17, 11, 1)},
		{"1:56pm on 8 May 2023", d(2023, 5, 8, 13, 56)},
		{"1:56 P.M. on May 8, 2023", d(2023, 5, 8, 13, 56)},
		{"  1:56 PM ON 8TH MAY, 2023 ", d(2023, 5, 8, 13, 56)},
		{"8 Sept, 2023 at 9:05 am", d(2023, 9, 8, 9, 5)},
		{"13:56 on 8 May, 2023", d(2023, 5, 8, 13, 56)},
		{"9 am on 3 Feb 2023", d(2023, 2, 3, 9, 0)},
		{"8 May, 2023", d(2023, 5, 8, 0, 0)},
		{"29 February 2024", d(2024, 2, 29, 0, 0)},
		{"2023-05-08", d(2023, 5, 8, 0, 0)},
		{"2023-05-08 13:56", d(2023, 5, 8, 13, 56)},
	}
	for _, c := range good {
		got, err := ParseDateTime(c.in)
		if err != nil || !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("ParseDateTime(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []string{
		"", "hello", "13:56 pm on 8 May, 2023", "0:30 am on 8 May, 2023", "1:60 pm on 8 May, 2023",
		"1:56 pm on 31 June, 2023", "29 February 2023", "1:56 pm on 8 Mayo, 2023", "1:56 pm on 8 May",
		"1:56 pm on May, 2023", "1:56 pm on 8 May, 2023, 2024", "1:56 pm 2:00 pm on 8 May, 2023",
		"pm on 8 May, 2023", "1:56 pm am on 8 May 2023", "24:00 on 8 May 2023",
	}
	for _, in := range bad {
		if got, err := ParseDateTime(in); err == nil {
			t.Errorf("ParseDateTime(%q) = %v, want an error", in, got)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
			t.Errorf("ParseDateTime(%q) error %q does not quote the input", in, err)
		}
	}
}

// devDataPath finds the LoCoMo dev split: $AMEM_LOCOMO_DATA, else
// ../../shared/locomo/locomo-dev.json from this package's directory (the
// repository's sibling shared/ folder).
func devDataPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("AMEM_LOCOMO_DATA")
	if p == "" {
		p = filepath.Join("..", "..", "shared", "locomo", "locomo-dev.json")
	}
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("SKIPPING: LoCoMo dev data not found at %s (%v); set AMEM_LOCOMO_DATA to run the real-data tests", p, err)
		fmt.Fprintln(os.Stderr, "locomo: "+msg)
		t.Skip(msg)
	}
	return p
}

func TestLoadDevData(t *testing.T) {
	convs, err := Load(devDataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 3 {
		t.Fatalf("got %d conversations, want 3", len(convs))
	}
	turns, questions, withEvidence14 := 0, 0, 0
	perCat := map[int]int{}
	for _, c := range convs {
		ids := map[string]bool{}
		for i, s := range c.Sessions {
			if i > 0 && c.Sessions[i-1].Index >= s.Index {
				t.Errorf("%s: sessions out of order at %d", c.SampleID, s.Index)
			}
			if s.DateTime.IsZero() || s.RawDateTime == "" {
				t.Errorf("%s session %d: no date", c.SampleID, s.Index)
			}
			for _, tu := range s.Turns {
				ids[tu.DiaID] = true
				if !strings.HasPrefix(tu.DiaID, fmt.Sprintf("D%d:", s.Index)) || tu.Session != s.Index || !tu.Time.Equal(s.DateTime) {
					t.Errorf("%s: turn %s in session %d", c.SampleID, tu.DiaID, s.Index)
				}
				if tu.Speaker != c.SpeakerA && tu.Speaker != c.SpeakerB {
					t.Errorf("%s %s: speaker %q", c.SampleID, tu.DiaID, tu.Speaker)
				}
			}
			turns += len(s.Turns)
		}
		for i, q := range c.QA {
			if q.Index != i {
				t.Errorf("%s qa[%d]: Index %d", c.SampleID, i, q.Index)
			}
			for _, e := range q.Evidence {
				if !ids[e] {
					t.Errorf("%s qa[%d]: evidence %q not in the conversation", c.SampleID, i, e)
				}
			}
			if q.Category >= 1 && q.Category <= 4 {
				if q.Answer == "" {
					t.Errorf("%s qa[%d]: empty answer", c.SampleID, i)
				}
				if len(q.Evidence) > 0 {
					withEvidence14++
				}
			}
			if q.Category == 5 && q.AdversarialAnswer == "" {
				t.Errorf("%s qa[%d]: adversarial question without adversarial_answer", c.SampleID, i)
			}
			perCat[q.Category]++
		}
		questions += len(c.QA)
	}
	if turns != 1451 || questions != 497 {
		t.Errorf("got %d turns and %d questions, want 1451 and 497", turns, questions)
	}
	if want := map[int]int{1: 74, 2: 90, 3: 21, 4: 200, 5: 112}; !reflect.DeepEqual(perCat, want) {
		t.Errorf("questions per category = %v, want %v", perCat, want)
	}
	// docs/LOCOMO.md's reference retrieval numbers are over n = 383.
	if withEvidence14 != 383 {
		t.Errorf("%d category 1-4 questions with evidence, want 383", withEvidence14)
	}

	c26 := convs[0]
	if c26.SampleID != "conv-26" || c26.SpeakerA != "Caroline" || c26.SpeakerB != "Melanie" {
		t.Fatalf("first conversation = %s (%s, %s)", c26.SampleID, c26.SpeakerA, c26.SpeakerB)
	}
	s1 := c26.Sessions[0]
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); s1.Index != 1 || !s1.DateTime.Equal(want) || s1.RawDateTime != "1:56 pm on 8 May, 2023" {
		t.Errorf("conv-26 session_1 = %d %v %q, want 1 %v", s1.Index, s1.DateTime, s1.RawDateTime, want)
	}
	// conv-26 has session_N_date_time keys up to 35 but turns only up to 19.
	if n, last := len(c26.Sessions), c26.Sessions[len(c26.Sessions)-1].Index; n != 19 || last != 19 {
		t.Errorf("conv-26 has %d sessions, last %d; want 19, 19", n, last)
	}
	if q := c26.QA[37]; !reflect.DeepEqual(q.Evidence, []string{"D8:6", "D9:17"}) {
		t.Errorf("conv-26 qa[37] evidence = %q, want [D8:6 D9:17]", q.Evidence)
	}
	if q := c26.QA[1]; q.Answer != "2022" {
		t.Errorf("conv-26 qa[1] answer = %q, want \"2022\"", q.Answer)
	}
	if tu, ok := c26.Turn("D1:5"); !ok || !strings.HasPrefix(tu.Content(), "Caroline: The transgender stories") ||
		!strings.HasSuffix(tu.Content(), " (image: a photo of a dog walking past a wall with a painting of a woman)") {
		t.Errorf("conv-26 D1:5 content = %q", tu.Content())
	}
}

func TestParseObservations(t *testing.T) {
	raw := strings.Replace(tinyJSON, `"observation": {}`, `"observation": {
   "session_9_observation": {"Bob": [["Bob painted another picture.", "D9:17"]]},
   "session_8_observation": {
    "Bob": [["Bob saw a sunset.", ["D8:6", "D8:5"]], ["Bob cites nothing here.", "D99:1"]],
    "Ann": [["Ann shared a photo.", "D8:5; D8:6"], ["  ", "D8:5"]]
   },
   "session_12_observation": {"Ann": [["No such session.", "D8:5"]]},
   "session_summary_x": {}
  }`, 1)
	convs, err := Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	got := convs[0].Observations
	may8 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	want := []Observation{
		{Session: 8, Speaker: "Ann", Text: "Ann shared a photo.", Cites: []string{"D8:5", "D8:6"}, Time: may8},
		{Session: 8, Speaker: "Bob", Text: "Bob saw a sunset.", Cites: []string{"D8:6", "D8:5"}, Time: may8},
		{Session: 9, Speaker: "Bob", Text: "Bob painted another picture.", Cites: []string{"D9:17"}, Time: time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("observations\n got %+v\nwant %+v", got, want)
	}
	bad := strings.Replace(tinyJSON, `"observation": {}`, `"observation": {"session_8_observation": {"Bob": [["only the fact"]]}}`, 1)
	if _, err := Parse(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "[fact, citation]") {
		t.Fatalf("a fact without a citation: %v", err)
	}
}

func TestObservationsOfTheDevSplit(t *testing.T) {
	convs, err := Load(devDataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range convs {
		n += len(c.Observations)
		for _, o := range c.Observations {
			for _, id := range o.Cites {
				if _, ok := c.Turn(id); !ok {
					t.Fatalf("%s: %q cites %s, not a turn", c.SampleID, o.Text, id)
				}
			}
		}
	}
	// The README of the split: 677 facts, each citing a turn.
	if n != 677 {
		t.Fatalf("%d observations, want 677", n)
	}
}
