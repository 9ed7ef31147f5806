package progress_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/offline/progress"
)

// clock is a fake clock the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestLogLines: a writer that is not a terminal gets a line per interval, with
// count, percentage, rate and ETA, and a final line from Done.
func TestLogLines(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(1_000_000, 0)}
	r := progress.New(&buf, "scan", "documents", 1000, progress.Options{Interval: 2 * time.Second, Now: c.now})
	for i := range 10 { // 100 documents a second for 10 s
		c.advance(time.Second)
		r.Set(int64(i+1) * 100)
	}
	r.Done()
	want := "scan: 200/1000 documents (20%), 100/s, ETA 8s\n" +
		"scan: 400/1000 documents (40%), 100/s, ETA 6s\n" +
		"scan: 600/1000 documents (60%), 100/s, ETA 4s\n" +
		"scan: 800/1000 documents (80%), 100/s, ETA 2s\n" +
		"scan: 1000/1000 documents (100%), 100/s\n" +
		"scan: 1000 documents in 10s (100/s)\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// TestUnknownTotal: without a total the line has no percentage or ETA.
func TestUnknownTotal(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	r := progress.New(&buf, "mine", "itemsets", 0, progress.Options{Mode: progress.Log, Interval: time.Second, Now: c.now})
	c.advance(1500 * time.Millisecond)
	r.Add(30)
	r.Add(30) // within the interval of the last line: silent
	r.Done()
	want := "mine: 30 itemsets, 20/s, 1.5s\nmine: 60 itemsets in 1.5s (40/s)\n"
	if got := buf.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestOff: Off mode and a nil writer give a nil Reporter, which writes nothing
// and whose methods may still be called.
func TestOff(t *testing.T) {
	var buf bytes.Buffer
	for _, r := range []*progress.Reporter{
		progress.New(&buf, "scan", "documents", 10, progress.Options{Mode: progress.Off}),
		progress.New(nil, "scan", "documents", 10, progress.Options{Mode: progress.Log}),
	} {
		if r != nil {
			t.Fatalf("reporter %v, want nil", r)
		}
		r.Set(5)
		r.Add(5)
		r.Done()
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
	}
}

// TestBar: Bar mode redraws one line in place and clears it before the final line.
func TestBar(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	r := progress.New(&buf, "scan", "documents", 10, progress.Options{Mode: progress.Bar, Now: c.now})
	c.advance(time.Second)
	r.Set(5)
	c.advance(time.Millisecond) // too soon to redraw
	r.Set(6)
	r.Done()
	got := buf.String()
	want := "\r\033[Kscan [" + strings.Repeat("=", 15) + strings.Repeat(" ", 15) + "] 5/10 documents (50%), 5/s, ETA 1s" +
		"\r\033[Kscan: 6 documents in 1.001s (6/s)\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestParseMode(t *testing.T) {
	f := func(s string, want progress.Mode, ok bool) {
		t.Helper()
		m, err := progress.ParseMode(s)
		if m != want || (err == nil) != ok {
			t.Errorf("ParseMode(%q) = %v, %v; want %v, ok %v", s, m, err, want, ok)
		}
	}
	f("auto", progress.Auto, true)
	f("bar", progress.Bar, true)
	f("log", progress.Log, true)
	f("off", progress.Off, true)
	f("quiet", progress.Auto, false)
}
