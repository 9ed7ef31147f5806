#!/usr/bin/env bash
# Runs `dedupstream bench` at growing sizes and writes the scaling table of BENCHMARKS.md,
# between <!-- gen:scaling --> and <!-- /gen:scaling -->, from the runs' summary lines.
#
#   docs/bench/scaling.sh                      10k, 30k, 100k, 300k and 1M documents
#   docs/bench/scaling.sh 10000 30000          only these sizes
#
# Each size is a fresh run: a broker process (its log on disk, bench --broker-log), the
# throughput mode (passthrough, then the filter over a pre-filled backlog), then the latency
# mode: 200,000 more documents (enough to fill several of the filter's memtables, whose
# switches and flushes make the tail; the bench's default) from a producer limited to
# half the filter's docs/s — producer and read-back alone, passthrough, filter. Every run's
# whole output is kept in $SCALING_LOGS (default: a temporary directory, removed at exit).
# The 1M run needs ~7.5 GB free in $TMPDIR for the broker's log (input, passthrough and
# filter copies, latency topics) and the state.
set -euo pipefail
source "$(dirname "$0")/lib.sh" # root, $tmp, $tmp/dedupstream, field
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 30000 100000 300000 1000000)
logs=${SCALING_LOGS:-$tmp}
mkdir -p "$logs"

# row LINE: one Markdown row of the table from a summary line.
row() {
	local s=$1
	printf '| %s | %s | **%s** | %s | %s | %s / %s | %s | %s | %s / %s / %s | %s / %s / %s | %s / %s / %s |\n' \
		"$(field "$s" stored)" "$(field "$s" pass_docs_s)" "$(field "$s" docs_s)" \
		"$(field "$s" cpu_s)" "$(field "$s" peak_rss_mb)" "$(field "$s" peak_anon_mb)" "$(field "$s" file_mb)" \
		"$(field "$s" state_bytes_doc)" "$(field "$s" latency_rate)" "$(field "$s" p50_ms)" "$(field "$s" p99_ms)" "$(field "$s" max_ms)" \
		"$(field "$s" pass_p50_ms)" "$(field "$s" pass_p99_ms)" "$(field "$s" pass_max_ms)" \
		"$(field "$s" floor_p50_ms)" "$(field "$s" floor_p99_ms)" "$(field "$s" floor_max_ms)"
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
body=$tmp/scaling.md
{
	echo '```sh'
	echo 'go build -o /tmp/dedupstream ./cmd/dedupstream'
} >"$body"
rows=()
for n in "${sizes[@]}"; do
	args=(bench --docs "$n" --latency-docs 200000)
	echo "/tmp/dedupstream ${args[*]}" >>"$body"
	echo "scaling: dedupstream ${args[*]}" >&2
	LC_ALL=C "$tmp/dedupstream" "${args[@]}" | tee "$logs/bench-$n.txt" >&2
	rows+=("$(row "$(sed -n 's/^summary: //p' "$logs/bench-$n.txt")")")
done
{
	echo '```'
	echo
	echo "Run on $(date -u +%F) at commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!BENCHMARKS.md' || echo ' (with uncommitted changes)'); machine: $(nproc) ×" \
		"$(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM;" \
		"load average before the runs $load."
	if awk -v l="${load%% *}" 'BEGIN { exit !(l > 1) }'; then
		echo
		echo "**Noisy**: the machine was not quiet (load average $load before the runs); these figures show that the harness works, not how fast dedupstream is."
	fi
	echo
	echo '| documents stored | passthrough docs/s | dedupstream docs/s | CPU s | peak RSS MB | peak anonymous / file-backed at the end MB | state bytes/doc | latency mode docs/s | latency p50 / p99 / max ms | passthrough latency p50 / p99 / max ms | no-pipeline latency p50 / p99 / max ms |'
	echo '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
	printf '%s\n' "${rows[@]}"
} >>"$body"

file=BENCHMARKS.md
awk -v begin="<!-- gen:scaling -->" -v end="<!-- /gen:scaling -->" -v body="$body" '
	$0 == begin { print; while ((getline line < body) > 0) print line; skip = 1; next }
	$0 == end { skip = 0 }
	!skip { print }
' "$file" >"$tmp/out"
grep -qx "<!-- /gen:scaling -->" "$tmp/out" || { echo "scaling: $file has no gen:scaling markers" >&2; exit 1; }
cp "$tmp/out" "$file"
