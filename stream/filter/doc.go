// Package filter is one filter instance wired from the whole configuration
// file: its Config gathers every package's section with the defaults and the
// rules between sections and builds the sketch method; New opens the state
// (or the index shards), builds the pipeline, sets the memory limit and
// serves the admin port; Run and Close run and stop them in order. A Filter
// is run by one goroutine; Ready and Counts may be called from any.
package filter
