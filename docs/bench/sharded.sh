#!/usr/bin/env bash
# Sharded mode against one instance, same documents: CPU per document summed
# over all processes, throughput, state and internal-topic bytes per document
# (BENCHMARKS.md, "Sharded mode and scaling"). Each row is one `dedupstream bench` in fleet
# mode: the broker in a process of its own, the filter as N real
# `dedupstream run` processes. Run it on a quiet machine.
#
#   docs/bench/sharded.sh [DOCS] [ROUNDS]      # default 100000 documents, 2 rounds
set -euo pipefail
cd "$(dirname "$0")/../.."
docs=${1:-100000}
rounds=${2:-2}
bin=$(mktemp -d)/dedupstream
go build -o "$bin" ./cmd/dedupstream
run() { "$bin" bench --docs "$docs" --partitions 4 --latency-docs 0 --passthrough=false "$@" | grep '^fleet '; }
for r in $(seq "$rounds"); do
  echo "# round $r"
  run --instances 1 --index-shards 0          # today's single-instance index, as a process
  run --instances 1 --index-shards 8
  run --instances 2 --index-shards 8
  run --instances 3 --index-shards 8 --rebuild
  run --instances 1 --index-shards 8 --pin 1  # one core each (taskset)
  run --instances 2 --index-shards 8 --pin 2
done
