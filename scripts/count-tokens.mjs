// Counts the tokens of the curator's rendered requests and of the answers
// given to them with real tokenizers (OpenAI's o200k_base and cl100k_base,
// from the gpt-tokenizer package), instead of the characters/4 estimate of
// the Go test.
//
// Input: the JSON lines that `AMEM_PROMPT_DUMP=FILE go test -run
// PromptTokens ./llmcurator` writes, one Add's prompt and completion texts
// per line with its config ("TestPromptTokens/<data>/<call>"). Output: the
// mean prompt and completion tokens per config and, for each connect
// config, the total per Add (construct + connect, prompt + completion).
// Run through scripts/count-tokens.sh, which installs the tokenizer.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const [file, modules] = process.argv.slice(2);
const require = createRequire(modules + '/');
const tokenizers = {
  o200k_base: require('gpt-tokenizer/cjs/encoding/o200k_base').encode,
  cl100k_base: require('gpt-tokenizer/cjs/encoding/cl100k_base').encode,
};
const names = Object.keys(tokenizers);

const sums = new Map(); // config -> {n, chars, prompt and completion tokens per tokenizer}
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line) continue;
  const { config, text, completion = '' } = JSON.parse(line);
  const zero = () => Object.fromEntries(names.map(k => [k, 0]));
  const s = sums.get(config) ?? { n: 0, chars: 0, prompt: zero(), completion: zero() };
  s.n++;
  s.chars += [...text].length + [...completion].length;
  for (const [name, encode] of Object.entries(tokenizers)) {
    s.prompt[name] += encode(text).length;
    s.completion[name] += encode(completion).length;
  }
  sums.set(config, s);
}

const mean = (s, part, name) => s[part][name] / s.n;
const both = (s, name) => mean(s, 'prompt', name) + mean(s, 'completion', name);
console.log(`| config | adds | chars/4 | ${names.map(n => `${n} prompt + completion`).join(' | ')} | per Add (${names.join(', ')}) |`);
console.log(`|---|---|---|${names.map(() => '---').join('|')}|---|`);
for (const [config, s] of sums) {
  const data = config.split('/').slice(0, -1).join('/');
  const construct = sums.get(data + '/construct');
  const perAdd = config.endsWith('/construct') || !construct ? '' :
    names.map(n => (both(s, n) + both(construct, n)).toFixed(0)).join(', ');
  const cells = names.map(n => `${mean(s, 'prompt', n).toFixed(0)} + ${mean(s, 'completion', n).toFixed(0)}`);
  console.log(`| ${config} | ${s.n} | ${(s.chars / 4 / s.n).toFixed(0)} | ${cells.join(' | ')} | ${perAdd} |`);
}
