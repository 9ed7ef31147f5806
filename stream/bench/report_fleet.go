package bench

import (
	"fmt"
	"io"
)

// WriteFleet writes the fleet run's table, its failover, rebuild and latency
// mode if measured, and one line of key=value pairs for scripts; pass is the
// passthrough's run, if not nil.
func WriteFleet(w io.Writer, pass *FilterRun, r *FleetRun, pr PageReporting) {
	mode := "single-instance index"
	if r.Shards > 0 {
		mode = fmt.Sprintf("sharded index, %d shards", r.Shards)
	}
	s := r.Elapsed.Seconds()
	fmt.Fprintf(w, "\nfleet: %d instance(s) as processes, %s (wall time from the first start to the last commit, group joins included)\n\n", r.Instances, mode)
	if r.Latency != nil {
		fmt.Fprintf(w, "(state and topic bytes per document over all %d documents the fleet filtered, the latency mode's included)\n\n", r.processed())
	}
	fmt.Fprintln(w, "| instances | shards | docs | seconds | docs/s | CPU s (all instances) | CPU µs/doc | max RSS MB | max peak anonymous MB | state bytes/doc | sequence-log bytes/doc | answer-topic bytes/doc |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	per := func(b int64) float64 { return float64(b) / float64(r.processed()) }
	fmt.Fprintf(w, "| %d | %d | %d | %.2f | %.0f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", r.Instances, r.Shards, r.Records, s,
		float64(r.Records)/s, r.CPU.Seconds(), float64(r.CPU.Microseconds())/float64(r.Records), float64(r.MaxRSS)/1e6,
		float64(r.MaxAnon)/1e6, per(r.StateBytes), per(r.SequenceB), per(r.AnswersB))
	if pass != nil {
		fmt.Fprintf(w, "\nthroughput ratio fleet/passthrough: %.2f\n", pass.Elapsed.Seconds()/s)
	}
	if f := r.Failover; f != nil {
		fmt.Fprintf(w, "failover: instance %d (shards %v) SIGKILLed once the fleet was idle (%.1f s after the run); the others served all %d shards %.2f s later (%d reopened warm, %d rebuilt from the sequence log; session timeout 2 s)\n",
			f.Killed, f.Shards, f.Settled.Seconds(), r.Shards, f.Took.Seconds(), f.Warm, f.Rebuilt)
	}
	if r.Rebuild > 0 {
		fmt.Fprintf(w, "rebuild: a fresh instance replayed all %d shards (%.0f MB of sequence log) in %.2f s\n", r.Shards, float64(r.SequenceB)/1e6, r.Rebuild.Seconds())
	}
	if l := r.Latency; l != nil {
		idle := "at once (--settle=false)"
		if r.Settled > 0 {
			idle = fmt.Sprintf("once it had been idle for a second (%.1f s after the commit; at most 10 min)", r.Settled.Seconds())
		}
		fmt.Fprintf(w, "\nlatency mode: %d documents (after %d warm-up) produced at %.0f docs/s to the running fleet's input, %s;\n"+
			"per record from the input record's timestamp to the output record's read-back; with the %d documents of the\n"+
			"throughput run stored\n\n", l.Docs, LatencyWarmup, l.Produced, idle, r.Records)
		writeLatencyTable(w, r.Floor, nil, "dedupstream fleet", l)
		fmt.Fprintf(w, "\nthe instances' CPU during the latency run (its warm-up included): %.1f s, %.0f µs a record\n", r.LatencyCPU.Seconds(), r.latencyCPUPerRecord())
		if l.BrokerKnown {
			fmt.Fprintf(w, "while the measured records were produced and read back, the broker process's CPU: %.1f s, %.0f µs a record; this process's (producer, read-back): %.1f s, %.0f µs a record\n",
				l.BrokerCPU.Seconds(), perRecord(l.BrokerCPU, l.Docs), l.CPU.Seconds(), perRecord(l.CPU, l.Docs))
		}
	}
	latRate := "-"
	if r.Latency != nil {
		latRate = fmt.Sprintf("%.0f", r.Latency.Produced)
	}
	fmt.Fprintf(w, "fleet instances=%d shards=%d pin=%d docs=%d seconds=%.2f docs_per_s=%.0f cpu_s=%.2f cpu_us_per_doc=%.0f max_rss_mb=%.0f max_peak_anon_mb=%.0f state_b_per_doc=%.0f sequence_b_per_doc=%.0f answers_b_per_doc=%.0f shard_balance=%.3f rebuild_s=%.2f failover_s=%.2f",
		r.Instances, r.Shards, r.Pin, r.Records, s, float64(r.Records)/s, r.CPU.Seconds(), float64(r.CPU.Microseconds())/float64(r.Records),
		float64(r.MaxRSS)/1e6, float64(r.MaxAnon)/1e6, per(r.StateBytes), per(r.SequenceB), per(r.AnswersB), r.Balance, r.Rebuild.Seconds(), r.Failover.seconds())
	latBroker := "-"
	if r.Latency != nil && r.Latency.BrokerKnown {
		latBroker = fmt.Sprintf("%.0f", perRecord(r.Latency.BrokerCPU, r.Latency.Docs))
	}
	fmt.Fprintf(w, " latency_rate=%s floor_p50_ms=%s floor_p99_ms=%s floor_max_ms=%s p50_ms=%s p99_ms=%s max_ms=%s latency_cpu_us=%.0f latency_broker_us=%s page_reporting=%s\n",
		latRate, latencyMS(r.Floor, 0.5), latencyMS(r.Floor, 0.99), latencyMS(r.Floor, 1),
		latencyMS(r.Latency, 0.5), latencyMS(r.Latency, 0.99), latencyMS(r.Latency, 1), r.latencyCPUPerRecord(), latBroker, pr)
}

// processed is how many documents the fleet filtered: the throughput run's,
// and the latency mode's with its warm-up.
func (r *FleetRun) processed() int64 {
	if r.Latency == nil {
		return r.Records
	}
	return r.Records + int64(LatencyWarmup+r.Latency.Docs)
}

// latencyCPUPerRecord is the instances' CPU a record of the latency run, in µs.
func (r *FleetRun) latencyCPUPerRecord() float64 {
	if r.Latency == nil || r.Latency.Docs == 0 {
		return 0
	}
	return perRecord(r.LatencyCPU, LatencyWarmup+r.Latency.Docs)
}
