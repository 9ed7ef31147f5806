// Package bench is the harness behind "dedupstream bench" (Execute): it
// builds the pipelines it measures from the settings the command gives
// (Pipelines: a passthrough and a filter.Filter; RunCommand: a fleet's
// "dedupstream run" processes), owns and joins a pipeline's Run while it
// measures it (Measure, RunLatency; for a filter, MeasureFilter,
// FilterLatency and LatencyMode), samples the process's CPU time and memory
// (procfs and rusage where the system has them), makes and produces the
// bench documents (Source), reads outputs back for per-record latency, sums
// topics' bytes, runs and measures a fleet of filter processes (RunFleet,
// with a failover and a rebuild), and writes the runs' tables
// (WriteThroughput, WriteLatency, WriteFleet, WriteSummary). Its functions
// are safe for concurrent use; the figures are for BENCHMARKS.md, never for
// a pass/fail test.
package bench
