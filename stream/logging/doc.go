// Package logging builds a process's zap logger from its log section: the
// level, and JSON lines for machines or console lines on a terminal. It keeps
// no state; the loggers it builds are safe for concurrent use.
package logging
