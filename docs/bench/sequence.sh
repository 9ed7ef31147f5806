#!/usr/bin/env bash
# The sharded filter against one instance on the same documents in the same
# order: TestShardedCorpus over the whole of Reuters-21578 and of 20 Newsgroups
# (each wrapped as pages with near-copies, 4 input partitions; ../shared/corpora
# or $DEDUPSTREAM_CORPORA), a burst produced in slices while the fleet runs and a
# backlog produced before it starts, for N instances × S shards. Each run
# compares the outputs record by record (verdict, dedup.of), requires
# dedupstream_shard_missed_pairs_total = 0, every exact copy found, every
# duplicate in its original's dedup.cluster and recall within one point of one
# instance's, and logs the figures (docs/scale-out.md, "One global order: the
# sequence log"). At the end it prints one line a run.
#
#   docs/bench/sequence.sh [DOCS] [CORPORA]   # default: all documents of both corpora
set -uo pipefail
cd "$(dirname "$0")/../.."
docs=${1:-0}
corpora=${2:-"reuters21578.tar.gz 20news-bydate.tar.gz"}
summary=()
for c in $corpora; do
  for n in 1 2 3; do
    for s in 1 4 8; do
      echo "# $c: instances $n, shards $s"
      out=$(go test ./cmd/dedupstream -count=1 -timeout 60m -run '^TestShardedCorpus$' -v \
        -sharded-corpus "$c" -sharded-docs "$docs" -sharded-instances "$n" -sharded-shards "$s" -sharded-slices 20 2>&1)
      rc=$?
      grep -E 'sharded_test.go|^(--- |ok|FAIL)' <<<"$out"
      ways=$(grep -oE -- '--- (PASS|FAIL): TestShardedCorpus/[a-z]+' <<<"$out" | awk '{print $3 $2}' | tr '\n' ' ')
      summary+=("$c N=$n S=$s rc=$rc ${ways:-no subtest ran}")
      while read -r l; do summary+=("  $l"); done < <(grep -oE '[0-9]+ pages \([0-9]+ originals\).*' <<<"$out")
    done
  done
done
printf '%s\n' "${summary[@]}"
