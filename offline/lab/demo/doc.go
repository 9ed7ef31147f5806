// Package demo is the input, the run and the account of "dedupstream demo":
// labelled pages (generated, or a corpus wrapped as pages) as Kafka records
// with a handful of bad ones, their run through the filters configured for
// the demo (Config, Instances; Execute: one filter, or a fleet sharing a
// sharded index), and a summary of what the filters wrote for them, read
// back from their output topics and held against the pages' ground truth.
// Its values are not modified once made and may be shared between
// goroutines.
package demo
