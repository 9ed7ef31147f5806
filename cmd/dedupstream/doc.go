// Command dedupstream removes near-duplicate documents from Kafka streams. It
// is a thin layer over the library: it reads the configuration (file,
// environment, flags), builds the packages' configs from it, calls them, and
// prints what they return; the work lives in stream, stream/filter,
// stream/prepare, stream/shard, stream/bench, lsh, state, offline and
// offline/lab. Only this command reads configuration files, flags and the
// environment.
//
//	dedupstream run      consume, decide, emit (the stream mode)
//	dedupstream check    the brokers' API versions against those kafka-go sends
//	dedupstream demo     the whole thing on an embedded broker with generated pages
//	dedupstream bench    the filter end to end against a plain passthrough (stream/bench)
//	dedupstream gen      labelled near-duplicate pages, their truth and exact pair overlaps
//	dedupstream eval     score sketch methods and thresholds against a labelled corpus
//	dedupstream state    stats, backup, restore, compact or collect a state directory
//	dedupstream compare  why two documents are (not) duplicates
//	dedupstream broker   an embedded Kafka-protocol broker for trials and tests
//	dedupstream config   the effective configuration, secrets redacted
//	dedupstream offline  re-cluster a stopped filter's state, reports, pairs, itemsets
//	dedupstream version  the version
//
// The crash-point hook (DEDUPSTREAM_CRASH_POINT) is compiled in only with
// -tags crashpoint, for the crash tests.
package main
