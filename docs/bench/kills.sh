#!/usr/bin/env bash
# The sharded kill matrix (RELIABILITY.md, "SIGKILL, sharded"): TestSIGKILLSharded
# run RUNS times on the embedded broker and RUNS times on a real Kafka 2.4.0
# (../shared/kafka-2.4.0; skipped where Java is absent). Each run: three
# "dedupstream run --index-shards 8" processes, pages produced in bursts, a random
# instance SIGKILLed amid a burst (once the group has committed a random part
# of it) and restarted on its state RESTART later (before its old member's 30 s
# session timeout ends, as an orchestrator does), a fourth joining halfway
# (scale-up) and, in the even-numbered runs, one leaving for good at three
# quarters (scale-down, SIGTERM); then the input must drain within 3 minutes
# of the last kill (else the run has stalled and fails), every record must
# have exactly one outcome, replays must keep their verdicts and clusters, and
# no shard may give up waiting for a final. Prints each run's summary (kills, drain time,
# records, replays, rebuilds) and the runs failed, keeping a failed run's
# instance logs under $TMPDIR.
#
#   docs/bench/kills.sh [RUNS] [KILLS] [RESTART]    # default 10 runs, 6 kills, 8s
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
kills=${2:-6}
restart=${3:-8s}
failed=0
for broker in embedded real; do
  for seed in $(seq "$runs"); do
    real=false; [ "$broker" = real ] && real=true
    down=false; [ $((seed % 2)) = 0 ] && down=true
    logs=${TMPDIR:-/tmp}/kills-$broker-$seed # every process's log, kept if the run fails
    if out=$(go test ./cmd/dedupstream -count=1 -timeout 30m -run '^TestSIGKILLSharded$' -v \
        -sharded-kills "$kills" -sharded-session-timeout 30s -sharded-restart-after "$restart" -sharded-pages 400 \
        -sharded-real-kafka="$real" -sharded-scale-down="$down" -crash-seed "$seed" -keep-logs "$logs" 2>&1); then
      echo "$broker seed $seed (scale-down $down): $(grep -o '[0-9]* instances, .*' <<<"$out" | head -1)"
    else
      failed=$((failed + 1))
      echo "$broker seed $seed (scale-down $down): FAILED"
      log=${TMPDIR:-/tmp}/kills-$broker-$seed.log; printf "%s\n" "$out" >"$log"
      grep -E "crash_sharded_test.go:[0-9]+: [0-9g]" <<<"$out" | head -3; echo "  whole output: $log; the instances' logs: $logs"
    fi
  done
done
echo "runs failed: $failed of $((2 * runs))"
