// Counts the prompt tokens of the curator's rendered requests with real
// tokenizers (OpenAI's o200k_base and cl100k_base, from the gpt-tokenizer
// package), instead of the characters/4 estimate of the Go test.
//
// Input: the JSON lines that `AMEM_PROMPT_DUMP=FILE go test -run
// PromptTokens ./llmcurator` writes, one Add's prompt text per line with
// its config ("TestPromptTokens/<data>/<call>"). Output: the mean tokens
// per config and, for each connect config, per Add (construct + connect).
// Run through scripts/count-tokens.sh, which installs the tokenizer.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const [file, modules] = process.argv.slice(2);
const require = createRequire(modules + '/');
const tokenizers = {
  o200k_base: require('gpt-tokenizer/cjs/encoding/o200k_base').encode,
  cl100k_base: require('gpt-tokenizer/cjs/encoding/cl100k_base').encode,
};

const sums = new Map(); // config -> {n, chars, tokens per tokenizer}
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line) continue;
  const { config, text } = JSON.parse(line);
  const s = sums.get(config) ?? { n: 0, chars: 0, tok: Object.fromEntries(Object.keys(tokenizers).map(k => [k, 0])) };
  s.n++;
  s.chars += [...text].length;
  for (const [name, encode] of Object.entries(tokenizers)) s.tok[name] += encode(text).length;
  sums.set(config, s);
}

const mean = (s, name) => s.tok[name] / s.n;
const names = Object.keys(tokenizers);
console.log(`| config | adds | chars/4 | ${names.join(' | ')} | per Add (${names.join(', ')}) |`);
console.log(`|---|---|---|${names.map(() => '---').join('|')}|---|`);
for (const [config, s] of sums) {
  const data = config.split('/').slice(0, -1).join('/');
  const construct = sums.get(data + '/construct');
  const perAdd = config.endsWith('/construct') || !construct ? '' :
    names.map(n => (mean(s, n) + mean(construct, n)).toFixed(0)).join(', ');
  console.log(`| ${config} | ${s.n} | ${(s.chars / 4 / s.n).toFixed(0)} | ${names.map(n => mean(s, n).toFixed(0)).join(' | ')} | ${perAdd} |`);
}
