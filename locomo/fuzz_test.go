package locomo

import (
	"bytes"
	"math"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte(tinyJSON))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{}]`))
	f.Add([]byte(`[{"sample_id": 1}]`))
	f.Add([]byte(`[{"conversation": {"session_1": [{"dia_id": "D1:1"}], "session_1_date_time": "1:56 pm on 8 May, 2023"}, "qa": [{"answer": [[1]], "evidence": "D1:1;;", "category": 1e400}]}]`))
	f.Add([]byte(`[{"conversation": {"session_99999999999999999999": []}}]`))
	f.Add([]byte(`[{"conversation": {"session_2": null, "session_2_date_time": "12 pm on 31 Feb 2023"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		convs, err := Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, c := range convs {
			for _, tu := range c.Turns() {
				_ = tu.Content()
			}
			for _, q := range c.QA {
				for _, e := range q.Evidence {
					if _, ok := c.Turn(e); !ok {
						t.Fatalf("evidence %q not in conversation", e)
					}
				}
			}
		}
	})
}

func FuzzScorers(f *testing.F) {
	f.Add("The cats are running", "a cat runs", 1)
	f.Add("I don't know... 'tis \"fine\" -- gonna", "Likely no; though", 3)
	f.Add("not mentioned", "", 5)
	f.Add("\xff\xfe'", "’a'", 2)
	f.Fuzz(func(t *testing.T, pred, gold string, cat int) {
		for name, v := range map[string]float64{
			"F1Official": F1Official(pred, gold, cat),
			"F1Set":      F1Set(pred, gold),
			"BLEU1":      BLEU1(pred, gold),
		} {
			if math.IsNaN(v) || v < 0 || v > 1+1e-12 {
				t.Fatalf("%s(%q, %q) = %v", name, pred, gold, v)
			}
		}
		_ = PorterStem(pred)
		_, _ = ParseDateTime(pred)
	})
}
