#!/usr/bin/env bash
# A short demo of the main job on the offline default: add memories (each is
# enriched, linked to its neighbours and evolves them), then search.
set -euo pipefail
cd "$(dirname "$0")/.."
amem=./bin/amem
db=$(mktemp -d)/demo.db
trap 'rm -rf "$(dirname "$db")"' EXIT
ns=demo

add() { $amem add --db "$db" --namespace "$ns" --time "$1" "$2" >/dev/null; }
echo "== adding 8 memories to $db"
add 2023-05-08 "Caroline: I went to an LGBTQ support group yesterday and it was so powerful."
add 2023-05-08 "Melanie: I painted a sunrise over the lake last week, painting relaxes me."
add 2023-05-25 "Caroline: I'm researching adoption agencies, I want to give a kid a loving home."
add 2023-05-25 "Melanie: We went camping in the mountains with the kids and roasted marshmallows."
add 2023-06-09 "Caroline: The counselling course starts in July; I want to help trans youth."
add 2023-06-09 "Melanie: My pottery class made bowls, I love working with clay."
add 2023-07-02 "Caroline: I met an adoption counsellor who explained the home study process."
add 2023-07-02 "Melanie: The kids and I hiked to a waterfall on the camping trip."

q="What is Caroline doing about adoption?"
echo; echo "== amem search \"$q\""
$amem search --db "$db" --namespace "$ns" --k 3 "$q"

id=$($amem search --db "$db" --namespace "$ns" --k 1 --json "$q" | grep -m1 '"id"' | cut -d'"' -f4)
echo; echo "== amem show $id"
$amem show --db "$db" "$id"
echo; echo "== amem links $id"
$amem links --db "$db" "$id"
echo; echo "== amem history $id"
$amem history --db "$db" "$id"
echo; echo "== amem stats"
$amem stats --db "$db"
