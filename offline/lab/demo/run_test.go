package demo

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// fakeFilter decides the records fed to it; Run waits for its context.
type fakeFilter struct {
	records atomic.Int64
	ready   atomic.Bool
	ran     atomic.Bool
	closed  atomic.Bool
}

func (f *fakeFilter) Run(ctx context.Context) error {
	f.ran.Store(true)
	f.ready.Store(true)
	<-ctx.Done()
	return nil
}

func (f *fakeFilter) Counts() stream.Counts {
	n := f.records.Load()
	return stream.Counts{Records: n, Unique: n}
}

func (f *fakeFilter) Ready() error {
	if !f.ready.Load() {
		return errors.New("not yet")
	}
	return nil
}

func (f *fakeFilter) Close() error { f.closed.Store(true); return nil }

// TestRunOne stops and closes the filter once it has decided n records.
func TestRunOne(t *testing.T) {
	f := &fakeFilter{}
	f.records.Store(5)
	res, err := RunOne(context.Background(), f, 5)
	if err != nil || res.Counts.Records != 5 || !f.closed.Load() {
		t.Fatalf("RunOne = %+v, %v; closed %t; want 5 records and the filter closed", res, err, f.closed.Load())
	}
}

// TestRunFleet produces only once every instance is ready, waits for the
// records and the commit, sums the counts, says what each did and closes all.
func TestRunFleet(t *testing.T) {
	fs := []*fakeFilter{{}, {}, {}}
	var committed atomic.Bool
	fl := Fleet{
		Instances: len(fs),
		New:       func(i int) (Filter, error) { return fs[i], nil },
		Produce: func(context.Context) error {
			for _, f := range fs {
				if !f.ran.Load() {
					t.Error("produced before every instance was ready")
				}
			}
			fs[0].records.Store(2)
			fs[2].records.Store(4)
			go func() { time.Sleep(20 * time.Millisecond); committed.Store(true) }()
			return nil
		},
		Records:   6,
		Committed: func(context.Context) bool { return committed.Load() },
	}
	var out bytes.Buffer
	res, err := RunFleet(context.Background(), fl, &out)
	if err != nil || res.Counts.Records != 6 || !committed.Load() {
		t.Fatalf("RunFleet = %+v, %v (committed %t); want 6 records after the commit", res, err, committed.Load())
	}
	for i, f := range fs {
		if !f.closed.Load() {
			t.Errorf("instance %d not closed", i)
		}
	}
	if !strings.Contains(out.String(), "instance 3: 4 records decided (4 unique, 0 duplicates)") {
		t.Errorf("no line of instance 3 in:\n%s", out.String())
	}
}
