#!/usr/bin/env bash
# Measures the latency tail at 1M stored two ways, interleaved, and prints one row a run
# and how many runs had a p99 of at most 50 ms (the aim BENCHMARKS.md holds the tail to):
#
#   docs/bench/tail.sh            3 rounds: each a run at half the throughput run's rate and
#                                 one at a fixed 20,000 docs/s
#   docs/bench/tail.sh 5          5 rounds
#
# TAIL_DOCS (default 1000000) sets the documents stored first and TAIL_RATE (default 20000)
# the fixed rate; the latency mode produces 200,000 more in each run. Each run prints the
# machine's free page reporting (summary page_reporting: the order when the virtual machine
# hands free memory back to its host, off, or - without such a balloon), on which the tail
# depends (BENCHMARKS.md, "Latency"). A 1M run takes
# ~65 s and ~7.5 GB of $TMPDIR. Every run's whole output is kept in $TAIL_LOGS (default: a
# temporary directory, removed at exit).
set -euo pipefail
source "$(dirname "$0")/lib.sh" # root, $tmp, $tmp/dedupstream, field
rounds=${1:-3}
docs=${TAIL_DOCS:-1000000}
rate=${TAIL_RATE:-20000}
logs=${TAIL_LOGS:-$tmp}
mkdir -p "$logs"

echo "| round | latency rate | docs/s produced | p50 ms | p99 ms | max ms | broker CPU s (throughput run) | page reporting |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
declare -A runs met
for r in $(seq 1 "$rounds"); do
	for mode in half fixed; do
		args=(--docs "$docs" --latency-docs 200000 --passthrough=false)
		[ "$mode" = fixed ] && args+=(--rate "$rate")
		out="$logs/tail-$mode-$r.out"
		"$tmp/dedupstream" bench "${args[@]}" >"$out" 2>&1
		s=$(sed -n 's/^summary: //p' "$out")
		[ -n "$s" ] || { echo "run $mode $r: no summary line; see $out" >&2; exit 1; }
		p99=$(field "$s" p99_ms)
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$r" "$mode" "$(field "$s" latency_rate)" \
			"$(field "$s" p50_ms)" "$p99" "$(field "$s" max_ms)" "$(field "$s" broker_cpu_s)" "$(field "$s" page_reporting)"
		runs[$mode]=$((${runs[$mode]:-0} + 1))
		awk -v p="$p99" 'BEGIN { exit !(p ~ /^[0-9.]+$/ && p + 0 <= 50) }' && met[$mode]=$((${met[$mode]:-0} + 1))
	done
done
echo
for mode in half fixed; do
	echo "$mode: p99 <= 50 ms in ${met[$mode]:-0} of ${runs[$mode]} runs"
done
