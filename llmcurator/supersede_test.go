package llmcurator

import (
	"context"
	"strings"
	"testing"

	"github.com/amem-dev/amem"
)

// The model's supersedes answer becomes the decision's Supersede, in both
// connect modes: references mapped back to IDs, each once, unknown ones
// dropped, the reason kept; the prompt asks for it and its schema
// requires it; its tokens are the call's.
func TestConnectSupersedes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		mode    ConnectMode
		answers []amem.LLMResponse
	}{
		{OneCall, []amem.LLMResponse{ok(`{"links": [{"ref": "M1", "strength": 0.9}], "evolve": [],
			"supersedes": ["M1:  she left the group ", "M9: x", "[M1]: again"]}`)}},
		{TwoCalls, []amem.LLMResponse{
			ok(`{"links": [{"ref": "M1", "strength": 0.9}], "supersedes": ["M1: she left the group", "M9: x"]}`),
			ok(`{"evolve": []}`),
		}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			llm := &scripted{answers: tc.answers}
			d, err := New(llm, &Options{Connect: tc.mode}).Connect(ctx, newNote(), cands())
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Supersede) != 1 || d.Supersede[0] != (amem.Supersession{Target: "01H00000000000000000000AAA", Reason: "she left the group"}) {
				t.Fatalf("supersede %+v", d.Supersede)
			}
			if d.Usage.PromptTokens != 100 {
				t.Fatalf("usage %+v", d.Usage)
			}
			first := llm.reqs[0]
			if !strings.Contains(first.System, "supersedes") || !strings.Contains(string(first.Schema.Schema), `"supersedes"`) ||
				!strings.Contains(string(first.Schema.Schema), `"required":["links",`) {
				t.Fatalf("the first call does not ask for supersedes:\n%s\n%s", first.System, first.Schema.Schema)
			}
		})
	}
	// A model that leaves supersedes out supersedes nothing.
	llm := &scripted{answers: []amem.LLMResponse{ok(`{"links": [], "evolve": []}`)}}
	if d, err := New(llm, nil).Connect(ctx, newNote(), cands()); err != nil || d.Supersede != nil {
		t.Fatalf("%+v, %v", d, err)
	}
}
