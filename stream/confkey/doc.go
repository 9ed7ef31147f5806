// Package confkey sets the fields of a configuration struct by their YAML
// path from text: one key at a time, as a command-line flag gives it, or every
// key that an environment variable names. It keeps no state; its functions
// are safe for concurrent use on distinct structs.
package confkey
