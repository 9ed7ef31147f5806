package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// Mode selects how a Reporter writes.
type Mode int

// Modes. The zero Mode picks Bar for a terminal and Log for anything else.
const (
	Auto Mode = iota
	Bar       // one line redrawn in place with \r
	Log       // a line every Options.Interval, and one at the end
	Off       // nothing
)

// ParseMode reads "auto", "bar", "log" or "off" (the values of a --progress flag).
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return Auto, fmt.Errorf("progress: unknown mode %q (want auto, bar, log or off)", s)
}

var modeNames = [...]string{"auto", "bar", "log", "off"}

// Set parses s into m, so that a *Mode is a flag.Value.
func (m *Mode) Set(s string) error {
	v, err := ParseMode(s)
	if err == nil {
		*m = v
	}
	return err
}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Options configure a Reporter. Zero values mean the defaults.
type Options struct {
	Mode Mode
	// Interval is the time between log lines in Log mode; default 5s.
	Interval time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// EnsureDefaults fills in the zero fields.
func (o *Options) EnsureDefaults() {
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// redraw is the least time between two redraws of a bar.
const redraw = 200 * time.Millisecond

// barWidth is the number of cells of a bar.
const barWidth = 30

// Reporter reports the progress of one pass of known or unknown length.
type Reporter struct {
	w            io.Writer
	name, unit   string
	total        int64
	done         int64
	mode         Mode
	o            Options
	start, shown time.Time
	drawn        bool // a bar line is on screen
}

// New returns a Reporter of the pass called name, counting unit ("documents"),
// writing to w. A total of zero or less means the length is unknown: no
// percentage or ETA. New returns nil (which reports nothing) in Off mode.
func New(w io.Writer, name, unit string, total int64, o Options) *Reporter {
	o.EnsureDefaults()
	mode := o.Mode
	if mode == Auto {
		mode = Log
		if IsTerminal(w) {
			mode = Bar
		}
	}
	if mode == Off || w == nil {
		return nil
	}
	now := o.Now()
	return &Reporter{w: w, name: name, unit: unit, total: total, mode: mode, o: o, start: now, shown: now}
}

// Set records that done units are finished and reports if it is time to.
func (r *Reporter) Set(done int64) {
	if r == nil {
		return
	}
	r.done = done
	now := r.o.Now()
	switch {
	case r.mode == Bar && now.Sub(r.shown) >= redraw:
		r.bar(now)
	case r.mode == Log && now.Sub(r.shown) >= r.o.Interval:
		fmt.Fprintf(r.w, "%s: %s\n", r.name, r.status(now))
	default:
		return
	}
	r.shown = now
}

// Add records n more finished units.
func (r *Reporter) Add(n int64) {
	if r != nil {
		r.Set(r.done + n)
	}
}

// Done ends the pass with a final line: the count, the time taken and the rate.
func (r *Reporter) Done() {
	if r == nil {
		return
	}
	el := r.o.Now().Sub(r.start)
	if r.drawn {
		fmt.Fprint(r.w, "\r\033[K")
	}
	fmt.Fprintf(r.w, "%s: %d %s in %s (%s/s)\n", r.name, r.done, r.unit, round(el), rate(r.done, el))
}

func (r *Reporter) bar(now time.Time) {
	cells := ""
	if r.total > 0 {
		n := int(min(r.done, r.total) * barWidth / r.total)
		cells = "[" + strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n) + "] "
	}
	fmt.Fprintf(r.w, "\r\033[K%s %s%s", r.name, cells, r.status(now))
	r.drawn = true
}

// status is "done/total units (p%), rate/s, ETA d", shortened when the total is unknown.
func (r *Reporter) status(now time.Time) string {
	el := now.Sub(r.start)
	if r.total <= 0 {
		return fmt.Sprintf("%d %s, %s/s, %s", r.done, r.unit, rate(r.done, el), round(el))
	}
	s := fmt.Sprintf("%d/%d %s (%d%%), %s/s", r.done, r.total, r.unit, r.done*100/r.total, rate(r.done, el))
	if r.done > 0 && r.done < r.total {
		eta := time.Duration(float64(el) * float64(r.total-r.done) / float64(r.done))
		s += ", ETA " + round(eta).String()
	}
	return s
}

func rate(n int64, el time.Duration) string {
	if el <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(n)/el.Seconds())
}

func round(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
