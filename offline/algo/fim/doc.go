// Package fim mines frequent closed and maximal itemsets from a transaction database.
//
// A Dataset is read from the FIMI text format (one transaction per line, items as
// space-separated non-negative integers) or built from slices. Mine enumerates every
// frequent closed itemset, or every frequent maximal one, with the LCM algorithm of Uno,
// Kiyomi and Arimura: prefix-preserving closure extension over a depth-first tree, so
// each closed itemset is generated exactly once and nothing but the current branch is
// stored; occurrence deliver to count all extensions of a node in one pass; and
// conditional databases that drop infrequent items and merge transactions that agree
// on the items still to be added.
// Run time is linear in the number of itemsets found (times a polynomial in the data),
// which can still be huge at low support, so Mine is bounded by a context, a count and
// an approximate memory budget, and reports how far it got.
//
// A Dataset is read-only after construction and safe for concurrent use; Mine keeps
// all its working state in the call, so several Mine calls may run at once, on the
// same Dataset or not. The emit callback is called from Mine's goroutine only.
package fim
