// Package shard is the band-sharded index that lets several dedupstream
// instances share one near-duplicate index through Kafka: a Front routes each
// document's index keys to the shards that own them over the probe topic and
// joins their answers, and a Server owns shards by consumer-group assignment,
// each a state.Store rebuilt from the probe log, and answers. Front and Server
// are safe for concurrent use; see docs/scale-out.md for the design.
//
// # Logs
//
// The probe topic G.probes has one partition per shard. Its records are
// probes (a document's keys routed to that shard, its sketch, id, url,
// content hash, input position and timestamp) and finals (the verdict the
// front joined for a document, for a shard whose answer differed). It is the
// shard's log of record: a shard's store is what applying it in order gives,
// so a new owner with no local copy replays it. G.answers has one partition per
// input partition; a shard answers each probe on the partition its document
// was read from, where the front that owns that input partition reads it.
//
// # Order
//
// Shards decide in the global order of stream.Before — record timestamp, then
// input topic, partition and offset — which every instance computes alike, so
// a document is only ever a duplicate of one before it, wherever either was
// read. Each shard stores its answer for every document (the record's verdict
// fields), so a redelivered probe gets the first answer and a replayed input
// record the first verdict.
package shard
