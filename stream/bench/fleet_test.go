package bench

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// TestWaitCommittedSeesAnExit checks that the fleet bench stops waiting for
// the group's commits as soon as an instance exits, instead of waiting until
// its deadline for a group that will not commit.
func TestWaitCommittedSeesAnExit(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"bench"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	streamtest.Produce(t, b.Addr(), "bench", kafka.Message{Value: []byte("{}")})
	p, err := startFleetProcess(exec.Command("sh", "-c", "exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	err = waitCommitted(ctx, Cluster{Addr: b.Addr()}, "nobody", []*fleetProc{p})
	if err == nil || !strings.Contains(err.Error(), "instance 0 exited") || time.Since(start) > 30*time.Second {
		t.Fatalf("waitCommitted with an instance gone: %v after %v, want its exit reported at once", err, time.Since(start))
	}
}

// TestAnnotateTimeline: each window gets the CPU between the samples at its
// bounds, per second, and the tables at its end; a window past the samples
// gets nothing.
func TestAnnotateTimeline(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var ss []StateSample
	for i := 0; i <= 10; i++ { // every 100 ms for 1 s: 150 ms of CPU a sample, then 50
		cpu := ms(150*min(i, 5)) + ms(50*max(i-5, 0))
		tables := []int64{int64(3 + i/5), 0, 40}
		ss = append(ss, StateSample{At: t0.Add(ms(100 * i)), CPU: cpu, Tables: tables})
	}
	tl := Annotate([]Window{{Start: t0}, {Start: t0.Add(ms(500))}, {Start: t0.Add(ms(1000))}}, ss)
	if got := tl[0].Cores; got < 1.499 || got > 1.501 {
		t.Errorf("first window: %.3f cores, want 1.5", got)
	}
	if got := tl[1].Cores; got < 0.499 || got > 0.501 {
		t.Errorf("second window: %.3f cores, want 0.5", got)
	}
	if want := []int64{4, 0, 40}; !slices.Equal(tl[0].Tables, want) {
		t.Errorf("first window ends with tables %v, want %v", tl[0].Tables, want)
	}
	if tl[2].Cores != 0 || tl[2].Tables != nil {
		t.Errorf("a window past the samples was annotated: %+v", tl[2])
	}
}

// TestWritePageReporting: a line when the machine's balloon offers free page
// reporting, saying whether the kernel reports; none without such a balloon.
func TestWritePageReporting(t *testing.T) {
	for _, c := range []struct {
		r    PageReporting
		want string
	}{
		{PageReporting{}, ""},
		{PageReporting{Offered: true, On: true, Order: 9}, "reports free memory to its host (virtio-balloon free page reporting, blocks of order 9 and up)"},
		{PageReporting{Offered: true, Order: 11}, "offers free page reporting, and the kernel does not report (page_reporting_order 11)"},
		{PageReporting{Offered: true, Order: -1}, "whether the kernel reports could not be read"},
	} {
		var out bytes.Buffer
		WritePageReporting(&out, c.r)
		if got := out.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("WritePageReporting(%+v) = %q, want a line with %q", c.r, got, c.want)
		}
	}
}
