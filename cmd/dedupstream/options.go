package main

import "github.com/dedupstream/dedupstream/stream"

// noOption is the filter.Option that adjusts nothing.
func noOption(*stream.Deps) {}

// crashPointEnv names the fault-injection variable of "dedupstream run", for
// the crash and shutdown tests (crash_test.go, shutdown_test.go), not for
// operation, and read only by a binary built with -tags crashpoint
// (crashpoint.go, stream/crashpoint): DEDUPSTREAM_CRASH_POINT=stage:N makes
// the process SIGKILL itself at the N-th batch to finish that pipeline stage;
// stage:N:pause=DUR holds the stage there for DUR instead (a slow drain, for
// the signal tests).
// Stages: stream.BatchStages.
const crashPointEnv = "DEDUPSTREAM_CRASH_POINT"
