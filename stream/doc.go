// Package stream reads pages from Kafka, decides for each whether it is new or a
// near-duplicate of an earlier page, and writes it (tagged), drops it, or
// dead-letters it; a Pipeline is run by one goroutine at a time.
//
// The per-batch order is the delivery contract of DESIGN.md: decide, emit and wait
// for the broker's acknowledgement, write state, then commit the input offsets. A
// crash anywhere in that sequence replays the batch, and replayed records get the
// verdict they were given the first time (see Decider).
package stream
