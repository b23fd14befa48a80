package eval

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteTable writes the suite's one table: per set and half, each mode's
// recall, MRR and invariants.
func (r *SuiteResults) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "amem-eval suite, %s, %s: recall@1/5/%d and MRR over the queries something answers; own-text@1 over every note (its content as the query); k-prefix: the %d hits are the first %d of a search for %d\n\n",
		r.Date, r.Machine, r.K, r.K, r.K, r.PrefixK)
	for _, s := range r.Sets {
		fmt.Fprintf(w, "- %s: %s; %d notes, %d queries (%d held out), ingested in %.0f s\n", s.Name, s.About, s.Notes, s.Queries, s.HeldOut, s.Ingest)
	}
	floor := fmt.Sprint(r.MinScore)
	fmt.Fprintf(w, "\n| set | half | mode | n | recall@1 | recall@5 | recall@%d | MRR | paraphrase hit@1 | own-text@1 | k-prefix | at min score %s: irrelevant silent, relevant kept |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n", r.K, floor)
	for _, row := range r.Rows {
		para, own := "-", "-"
		if row.Paraphrases > 0 {
			para = fmt.Sprintf("%.3f (%d)", row.Paraphrase, row.Paraphrases)
		}
		if row.OwnTextN > 0 {
			own = fmt.Sprintf("%.3f (%d)", row.OwnText, row.OwnTextN)
		}
		fl := "-"
		if st, ok := row.Floors[floor]; ok {
			silent := "-"
			if st.Irrelevant > 0 {
				silent = fmt.Sprintf("%.2f (%d)", st.Silent, st.Irrelevant)
			}
			fl = fmt.Sprintf("%s, %.2f", silent, st.Kept)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s | %s | %.3f | %s | %s | %.3f (%d) | %s |\n", row.Set, row.Half, row.Mode, row.N,
			cell(row.Recall, "1"), cell(row.Recall, "5"), cell(row.Recall, fmt.Sprint(r.K)), row.MRR, para, own, row.Prefix, row.PrefixN, fl)
	}
	for _, row := range r.Rows {
		for _, m := range row.Misses {
			fmt.Fprintf(w, "\n%s/%s: %s", row.Set, row.Mode, m)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// WriteJSON writes the results, indented.
func (r *SuiteResults) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
