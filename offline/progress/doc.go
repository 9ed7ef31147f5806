// Package progress reports how far a long pass of the offline commands has
// got: a bar redrawn in place when the output is a terminal, a log line every
// few seconds otherwise. A Reporter is not safe for concurrent use; a nil
// *Reporter does nothing.
package progress
