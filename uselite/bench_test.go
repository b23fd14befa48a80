package uselite

import (
	"context"
	"testing"
)

// benchSentence is a typical ten-word sentence (13 tokens).
const benchSentence = "Caroline went to the LGBTQ support group on 7 May 2023."

// benchSentences are the texts tfjsbench/bench.js times as well, so that
// the two benchmarks measure the same work.
var benchSentences = []string{
	"The dog is running in the park",
	"A dog runs through the park",
	"I love eating pizza for dinner",
	"Caroline went to the LGBTQ support group on 7 May 2023.",
	"Melanie painted a sunrise over the lake last year.",
	"What did Caroline research?",
	"I adopted a golden retriever named Max last spring.",
	"Max is my dog; I got him in April.",
	"The Q3 budget review meeting moved to Thursday at 3pm.",
	"Remind me to call mom on her birthday, June 12th.",
	"She prefers tea over coffee in the morning.",
	"Our flight to Lisbon leaves at seven tomorrow evening.",
	"The new library opens next Monday with a reading festival.",
	"He keeps forgetting where he parked the car.",
	"We should book the restaurant for Saturday night.",
	"The project deadline was extended by two weeks.",
}

func BenchmarkEmbedOne(b *testing.B) {
	benchEmbedOne(b, loadTestModel(b), []string{benchSentence})
}

func BenchmarkEmbedBatch(b *testing.B) {
	m := loadTestModel(b)
	ctx := context.Background()
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = benchSentences[i%len(benchSentences)]
	}
	if _, err := m.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkTokenize times the tokenizer alone.
func BenchmarkTokenize(b *testing.B) {
	m := loadTestModel(b)
	var s tokScratch
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.tok.encode(benchSentence, &s)
	}
}

// BenchmarkEmbedOneKernels times BenchmarkEmbedOne's sentence with each
// kernel set this CPU can run (the portable Go one included).
func BenchmarkEmbedOneKernels(b *testing.B) {
	m := loadTestModel(b)
	texts := []string{benchSentence}
	saved := kernels
	defer func() { kernels = saved }()
	for _, ks := range availableKernels() {
		b.Run(ks.name, func(b *testing.B) {
			kernels = ks
			benchEmbedOne(b, m, texts)
		})
	}
}

// benchEmbedOne times Embed of texts after one warm-up call, reporting
// milliseconds per sentence for a single-sentence texts.
func benchEmbedOne(b *testing.B, m *Model, texts []string) {
	ctx := context.Background()
	b.Helper()
	if _, err := m.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/sentence")
}
