// Package explain sets two documents side by side to say why they are or are
// not near-duplicates: every exact measure of their texts, every sketch
// method's estimate, a stored sketch against another, and a record's field
// similarities, each written as a table. Its functions keep no state and are
// safe for concurrent use.
package explain
