package eval

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/locomo"
)

//go:embed prompts/answer.tmpl
var answerFS embed.FS

var answerPrompt = template.Must(template.ParseFS(answerFS, "prompts/answer.tmpl"))

// answerMaxTokens bounds an answer: LoCoMo golds are short phrases.
const answerMaxTokens = 100

// AnswerPrompt renders the answer prompt for a question and its context
// lines (in context order), per category as in the A-Mem harness:
// temporal questions are told to use the dates, adversarial ones may say
// "Not mentioned in the conversation".
func AnswerPrompt(question string, category int, context []string) (system, user string, err error) {
	data := map[string]any{"Question": question, "Category": category, "Context": context}
	var s, u bytes.Buffer
	if err := answerPrompt.ExecuteTemplate(&s, "system", data); err != nil {
		return "", "", err
	}
	if err := answerPrompt.ExecuteTemplate(&u, "user", data); err != nil {
		return "", "", err
	}
	return strings.TrimSpace(s.String()), strings.TrimSpace(u.String()), nil
}

// answer asks the model and scores its answer into qr.
func answer(ctx context.Context, llm amem.LLM, q locomo.Question, lines []string, qr *QuestionResult) error {
	system, user, err := AnswerPrompt(q.Question, q.Category, lines)
	if err != nil {
		return err
	}
	resp, err := llm.Complete(ctx, amem.LLMRequest{System: system, Messages: []amem.Message{{Role: "user", Content: user}}, MaxTokens: answerMaxTokens})
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	pred := strings.TrimSpace(resp.Text)
	gold := q.Answer
	if q.Category == locomo.CategoryAdversarial && q.AdversarialAnswer != "" && gold == "" {
		gold = q.AdversarialAnswer
	}
	f1 := locomo.F1Official(pred, gold, q.Category)
	f1s := locomo.F1Set(pred, gold)
	bleu := locomo.BLEU1(pred, gold)
	qr.Prediction, qr.F1, qr.F1Set, qr.BLEU1 = &pred, &f1, &f1s, &bleu
	qr.AnswerUsage = resp.Usage
	return nil
}
