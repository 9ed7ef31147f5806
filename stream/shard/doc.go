// Package shard is the band-sharded index that lets several dedupstream
// instances share one near-duplicate index through Kafka: a Front appends each
// batch's documents to the sequence log and joins the answers of the shards
// that own their keys, and a Server owns shards by consumer-group assignment,
// each a state.Store kept by applying the sequence log, and answers. Front and
// Server are safe for concurrent use; see docs/scale-out.md for the design.
//
// # Logs
//
// The sequence log G.sequence has one partition. Its records are batches of
// probes (documents whole: index keys, sketch, id, url, content hash, input
// position, timestamp, reply partition) and batches of finals (one for each
// document of a front batch that reached several shards, once the front has
// emitted it, with the decision the front joined where some shard's answer
// differed). It is the
// shards' log of record: a shard's store is what applying it in order gives,
// so a new owner with no local copy replays it. G.shards has one partition
// per shard and is never written: the index group assigns its partitions, and
// a shard's committed offset there is the sequence-log offset it has answered
// up to. G.answers has one partition per input partition; a shard answers each
// probe on the partition its document was read from, where the front that
// owns that input partition reads it.
//
// # Order
//
// A document's place in the global order is its position in the sequence log
// (positionOf: the record's offset and its index in the record), assigned at
// its first append and kept with it in every shard (state.Doc.Pos). Every
// shard applies the log in order, so it holds every earlier document sharing
// a key with one it decides, and a document is only ever a duplicate of one
// before it. Each shard stores its answer for every document (the record's
// verdict fields), so an appended-again document gets the first answer and a
// replayed input record the first verdict.
//
// # Clusters
//
// A shard holds back the answer for a duplicate of a document that reached
// several shards until that document's final has come through the log, and
// then answers with the original's joined cluster (settling in settle.go):
// every duplicate's cluster is its original's, as in one instance.
package shard
