package progress_test

import (
	"os"
	"time"

	"github.com/dedupstream/dedupstream/offline/progress"
)

// A pass of 300 documents reported as log lines (what Auto picks when the
// output is not a terminal), with a clock that moves one second per 100 documents.
func Example() {
	now := time.Unix(0, 0)
	r := progress.New(os.Stdout, "scan", "documents", 300, progress.Options{
		Mode: progress.Log, Interval: time.Second, Now: func() time.Time { return now },
	})
	for range 3 {
		now = now.Add(time.Second)
		r.Add(100)
	}
	r.Done()
	// Output:
	// scan: 100/300 documents (33%), 100/s, ETA 2s
	// scan: 200/300 documents (66%), 100/s, ETA 1s
	// scan: 300/300 documents (100%), 100/s
	// scan: 300 documents in 3s (100/s)
}
