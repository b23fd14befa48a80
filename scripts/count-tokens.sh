#!/usr/bin/env bash
# Measures the LLM curator's prompt tokens per Add with real tokenizers:
# renders the requests of 100 LoCoMo-like Adds (llmcurator's
# TestPromptTokens; the LoCoMo part needs ../shared/locomo or
# AMEM_LOCOMO_DATA) and counts them with o200k_base and cl100k_base.
# Needs Go and npm (the tokenizer package is installed once into the
# user cache).
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${XDG_CACHE_HOME:-$HOME/.cache}/amem/gpt-tokenizer"
if [ ! -d "$cache/node_modules/gpt-tokenizer" ]; then
	mkdir -p "$cache"
	npm install --prefix "$cache" --no-audit --no-fund --silent gpt-tokenizer@3.4.0
fi
dump=$(mktemp)
trap 'rm -f "$dump"' EXIT
AMEM_PROMPT_DUMP="$dump" go test -count=1 -run '^TestPromptTokens$' ./llmcurator >/dev/null
node scripts/count-tokens.mjs "$dump" "$cache/node_modules"
