#!/bin/sh
# Times package uselite and the reference tfjs implementation back to back
# on the same sentences and prints both and their ratio.
#
#   uselite/tfjsbench/compare.sh [seconds-per-benchmark]
#
# Needs go, node and npm (the first run installs the pinned reference
# packages into tfjsbench/node_modules), and the model in uselite.DefaultDir
# (run `amem model pull` first). The one-sentence numbers run pinned to one
# core (taskset, where available) with GOMAXPROCS=1; the batch numbers use
# every core. Benchmarks on a busy machine are noisy: run it a few times.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
pkg=$(cd "$here/.." && pwd)
secs=${1:-5}
pin=""
if command -v taskset >/dev/null 2>&1; then
	pin="taskset -c 0"
fi

if [ ! -d "$here/node_modules/@energetic-ai/embeddings" ]; then
	echo "installing the reference packages (npm install)..." >&2
	(cd "$here" && npm install --no-audit --no-fund --silent)
fi

bin=$(mktemp -d)/uselite.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$pkg" && go test -c -o "$bin" .)

# value UNIT: the number printed before UNIT in go test -bench output.
value() { awk -v u="$1" '{ for (i = 2; i <= NF; i++) if ($i == u) print $(i - 1) }'; }

go_one=$(cd "$pkg" && $pin "$bin" -test.run '^$' -test.bench '^BenchmarkEmbedOne$' -test.benchtime "${secs}s" -test.cpu 1 | value ms/sentence)
go_batch=$(cd "$pkg" && "$bin" -test.run '^$' -test.bench '^BenchmarkEmbedBatch$' -test.benchtime "${secs}s" | value sentences/s)
if [ -z "$go_one" ] || [ -z "$go_batch" ]; then
	echo "the Go benchmarks did not run: is the model installed? (run \`amem model pull\` or set AMEM_MODEL_DIR)" >&2
	exit 1
fi
js=$(cd "$here" && $pin node bench.js "$secs")
field() { echo "$js" | grep "\"name\":\"$1\"" | sed -n "s/.*\"$2\":\([0-9.e+-]*\).*/\1/p"; }
js_one=$(field one ms_per_sentence)
js_each=$(field batch64_one_per_call ms_per_sentence)
js_batch=$(field batch64_one_call sentences_per_s)

awk -v go1="$go_one" -v js1="$js_one" -v jse="$js_each" -v gob="$go_batch" -v jsb="$js_batch" -v cores="$(nproc 2>/dev/null || echo '?')" 'BEGIN {
	printf "one ~10-word sentence, one core:  Go %.2f ms   tfjs %.2f ms   ratio Go/tfjs %.3f\n", go1, js1, go1 / js1
	printf "64 mixed sentences:               Go %.0f sentences/s (%s cores)   tfjs %.0f sentences/s one call, %.0f one per call (1 core)\n", gob, cores, jsb, 1000 / jse
}'
