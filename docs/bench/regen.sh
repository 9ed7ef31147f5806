#!/usr/bin/env bash
# Regenerates the generated sections of BENCHMARKS.md, docs/bench/accuracy.md and
# docs/bench/peers.md: each lies between <!-- gen:NAME --> and <!-- /gen:NAME --> and is
# replaced by the output of the command printed inside it; everything outside the markers
# is hand-written and kept.
#
#   docs/bench/regen.sh              eval (generated pages and 20 Newsgroups) and peers
#   REGEN_BENCH=1 docs/bench/regen.sh   also the end-to-end scaling table (docs/bench/scaling.sh:
#                                       10k to 1M documents; needs a quiet machine)
#
# Run from anywhere inside the clone, with ../shared/corpora beside it.
set -euo pipefail
source "$(dirname "$0")/lib.sh" # root, $tmp, $tmp/dedupstream
corpora=../shared/corpora

# section FILE NAME SHOWN CMD...: runs CMD (from the clone's root) and puts SHOWN (the
# command as a reader would type it) and the output between the NAME markers of FILE.
section() {
	local file=$1 name=$2 shown=$3
	shift 3
	{
		echo '```sh'
		echo "$shown"
		echo '```'
		echo
		"$@"
	} >"$tmp/$name.md"
	put "$file" "$name"
}

# put FILE NAME: replaces the NAME section of FILE with the last output of section NAME.
put() {
	local file=$1 name=$2
	awk -v begin="<!-- gen:$name -->" -v end="<!-- /gen:$name -->" -v body="$tmp/$name.md" '
		$0 == begin { print; while ((getline line < body) > 0) print line; skip = 1; next }
		$0 == end { skip = 0 }
		!skip { print }
	' "$file" >"$tmp/out" && cp "$tmp/out" "$file"
	grep -qx "<!-- /gen:$name -->" "$file" || { echo "regen: $file has no end marker for $name" >&2; exit 1; }
}

eval_generated() (
	cd "$tmp"
	./dedupstream gen --pages 5000 --seed 1 --edit-rate 0.01 --out pages.jsonl --truth truth.tsv --pairs pairs.tsv >/dev/null
	./dedupstream eval --pages pages.jsonl --truth truth.tsv \
		--methods minhash,oph,bottomk,modm,full,supershingle,simhash,imatch --thresholds 0.5,0.7,0.8,0.9
)
section docs/bench/accuracy.md eval "dedupstream gen --pages 5000 --seed 1 --edit-rate 0.01 --out pages.jsonl --truth truth.tsv --pairs pairs.tsv
dedupstream eval --pages pages.jsonl --truth truth.tsv --methods minhash,oph,bottomk,modm,full,supershingle,simhash,imatch --thresholds 0.5,0.7,0.8,0.9" eval_generated
eval_corpus_cmd="dedupstream eval --corpus $corpora/20news-bydate.tar.gz --limit 0 --methods minhash,oph,bottomk,modm,full,simhash --thresholds 0.5,0.8,0.9"
section docs/bench/accuracy.md eval-corpus "$eval_corpus_cmd" "$tmp/dedupstream" eval --corpus "$corpora/20news-bydate.tar.gz" --limit 0 \
	--methods minhash,oph,bottomk,modm,full,simhash --thresholds 0.5,0.8,0.9
peers_cmd="go -C offline/lab/peers run . --corpus ../../../$corpora/20news-bydate.tar.gz --docs 20000"
section docs/bench/peers.md peers "$peers_cmd" go -C offline/lab/peers run . --corpus ../../../$corpora/20news-bydate.tar.gz --docs 20000
put BENCHMARKS.md peers
if [ "${REGEN_BENCH:-}" = 1 ]; then
	"$root/docs/bench/scaling.sh"
fi
