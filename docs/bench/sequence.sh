#!/usr/bin/env bash
# The sharded filter against one instance on the same documents in the same
# order: TestShardedReuters over the whole of Reuters-21578 (wrapped as pages
# with near-copies, 4 input partitions; ../shared/corpora or $DEDUPSTREAM_CORPORA),
# a burst produced in slices while the fleet runs and a backlog produced before
# it starts, for N instances × S shards. Each run compares the outputs record by
# record (verdict, dedup.of), requires dedupstream_shard_missed_pairs_total = 0,
# every exact copy found and recall within one point of one instance's, and
# logs the figures (docs/scale-out.md, "One global order: the sequence log").
#
#   docs/bench/sequence.sh [DOCS]      # default 0: all 21,578 stories
set -euo pipefail
cd "$(dirname "$0")/../.."
docs=${1:-0}
for n in 1 2 3; do
  for s in 1 4 8; do
    echo "# instances $n, shards $s"
    go test ./cmd/dedupstream -count=1 -timeout 60m -run '^TestShardedReuters$' -v \
      -sharded-docs "$docs" -sharded-instances "$n" -sharded-shards "$s" -sharded-slices 20 |
      grep -E 'sharded_test.go|^(--- |ok|FAIL)'
  done
done
