#!/usr/bin/env bash
# Sharded mode against one instance, same documents: CPU per document summed
# over all processes, throughput, state and internal-topic bytes per document
# (BENCHMARKS.md, "Sharded mode and scaling"). Each row is one `dedupstream bench` in fleet
# mode: the broker in a process of its own, the filter as N real
# `dedupstream run` processes. Run it on a quiet machine.
#
#   docs/bench/sharded.sh [DOCS] [ROUNDS]      # default 100000 documents, 2 rounds
set -euo pipefail
source "$(dirname "$0")/lib.sh"
docs=${1:-100000}
rounds=${2:-2}
run() { "$tmp/dedupstream" bench --docs "$docs" --partitions 4 --latency-docs 0 --passthrough=false "$@" | grep '^fleet '; }
for r in $(seq "$rounds"); do
  echo "# round $r"
  run --instances 1 --index-shards 0          # the single-instance index, as a process
  run --instances 1 --index-shards 1
  run --instances 1 --index-shards 4
  run --instances 1 --index-shards 8
  run --instances 2 --index-shards 2          # one shard an instance
  run --instances 2 --index-shards 4
  run --instances 2 --index-shards 8
  run --instances 3 --index-shards 8 --rebuild
done
