// Package stream reads pages from Kafka, decides for each whether it is new or a
// near-duplicate of an earlier page, and writes it (tagged), drops it, or
// dead-letters it; a Pipeline is run by one goroutine at a time. It holds the
// Kafka I/O and the pipeline; stream/prepare decodes, cleans and sketches each
// record.
//
// The per-batch order is the delivery contract of DESIGN.md: decide, emit and wait
// for the broker's acknowledgement, write state, then commit the input offsets. A
// crash anywhere in that sequence replays the batch, and replayed records get the
// verdict they were given the first time (see Decider).
//
// The index behind the decisions is either a local one (Index, a state.Store)
// or the band-sharded index that several instances share (Sharded, implemented
// by stream/shard): then the pipeline is the front, hands records on in
// record-time order across its partitions (reorder), appends each batch to
// the sequence log and joins the shards' answers, and settles the verdicts
// with the shards before the output is written.
package stream
