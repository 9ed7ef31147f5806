// Package admin is a filter's admin HTTP port: its configuration section, the
// server and the goroutine that serves it, the handler of /metrics, /livez,
// /readyz and /debug/state/backup, and the client that fetches that backup.
// A Server's methods are safe for concurrent use.
package admin
