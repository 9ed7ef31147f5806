#!/bin/sh
# Re-clustering at scale: builds an N-document state with `dedupstream bench`
# (20 Newsgroups stories and word-shuffled variants past its size, 20% of them
# 1%-edited near-copies, through the embedded broker into a Badger state; the
# default minhash sketch), then re-clusters the stopped state with star and with
# the closed-set clusters, printing wall time and peak RSS (GNU time) of each.
#
#   docs/bench/recluster-scale.sh 1000000 /tmp/state-1m   # the 1M run of BENCHMARKS.md
#   docs/bench/recluster-scale.sh 50000                    # a quick proof
#
# A state directory that exists already is reused (delete it to rebuild).
set -eu
N=${1:-1000000}
DIR=${2:-${TMPDIR:-/tmp}/dedupstream-scale-$N}
MIN_COMMON=${MIN_COMMON:-100}
BIN=${TMPDIR:-/tmp}/dedupstream-scale-bin
cd "$(dirname "$0")/../.."
go build -o "$BIN" ./cmd/dedupstream
if [ ! -d "$DIR" ]; then
	"$BIN" bench --docs "$N" --state "$DIR" --passthrough=false
fi
"$BIN" state stats --state "$DIR"
for algo in star closed; do
	echo "== offline cluster --algorithm $algo"
	/usr/bin/time -f "$algo: %e s wall, %U s user, %M KiB peak RSS" \
		"$BIN" offline cluster --state "$DIR" --algorithm "$algo" --min-common "$MIN_COMMON" --top 3 2>&1 |
		grep -v '^read [0-9]* documents$'
done
