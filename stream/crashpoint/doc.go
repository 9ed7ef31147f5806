// Package crashpoint is the fault-injection hook of the crash and shutdown
// tests: a Point kills the process, or holds the pipeline, when a stage of
// the pipeline finishes its N-th batch. A Point is safe for concurrent use.
package crashpoint
