// Package demo is the input and the account of "dedupstream demo": labelled
// pages (generated, or a corpus wrapped as pages) as Kafka records with a
// handful of bad ones, and a summary of what a filter wrote for them, read
// back from its output topics and held against the pages' ground truth. Its
// values are not modified once made and may be shared between goroutines.
package demo
