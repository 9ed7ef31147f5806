// Package memlimit sizes the process's Go soft memory limit to the state it
// holds — Badger's write buffers, the in-memory indexes and a headroom — and
// keeps it there as the state grows; its functions are safe for concurrent use.
package memlimit
