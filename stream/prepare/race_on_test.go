//go:build race

package prepare

// raceEnabled: the race detector slows the tests that run many pages, which
// then run fewer.
const raceEnabled = true
