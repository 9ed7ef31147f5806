package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// Filter is one filter the demo runs, built by its caller.
type Filter interface {
	// Run runs the pipeline until ctx is cancelled and the batch in hand
	// is drained.
	Run(ctx context.Context) error
	Counts() stream.Counts
	// Ready is nil once the filter consumes and, sharded, serves its shards.
	Ready() error
	Close() error
}

// Result is what the filters did and how long it took.
type Result struct {
	Counts  stream.Counts
	Elapsed time.Duration
}

// RunOne runs f until it has processed n records (or ctx ends), then stops
// it, waits for its drain and closes it.
func RunOne(ctx context.Context, f Filter, n int) (Result, error) {
	start := time.Now()
	run := stream.Start(ctx, stream.RunnerFunc(f.Run))
	err := run.WaitFor(ctx, func() bool { return f.Counts().Records >= int64(n) }, 5*time.Millisecond)
	res := Result{Elapsed: time.Since(start)}
	err = errors.Join(err, run.Stop())
	res.Counts = f.Counts()
	return res, errors.Join(err, f.Close())
}

// Fleet is several filters of one group sharing one sharded index.
type Fleet struct {
	Instances int
	New       func(i int) (Filter, error) // instance i, from 0
	// Produce writes the input, once every instance is ready.
	Produce func(ctx context.Context) error
	Records int // of the input
	// Committed reports whether the group has committed the whole input.
	Committed func(ctx context.Context) bool
}

// RunFleet starts fl's instances one after the other; once all are ready it
// produces the input and waits until they have decided every record and the
// group has committed them. It writes to w what each instance did, stops
// and closes them, and returns their summed counts.
func RunFleet(ctx context.Context, fl Fleet, w io.Writer) (Result, error) {
	var filters []Filter
	var runs []*stream.Running
	stop := func() error {
		var errs []error
		for i, r := range runs {
			errs = append(errs, r.Stop(), filters[i].Close())
		}
		return errors.Join(errs...)
	}
	start := time.Now()
	for i := range fl.Instances {
		f, err := fl.New(i)
		if err != nil {
			return Result{}, errors.Join(err, stop())
		}
		filters = append(filters, f)
		runs = append(runs, stream.Start(ctx, stream.RunnerFunc(f.Run)))
	}
	err := runs[0].WaitFor(ctx, func() bool { return allReady(filters) }, 10*time.Millisecond)
	if err == nil {
		start = time.Now()
		err = fl.Produce(ctx)
	}
	if err == nil {
		err = waitDone(ctx, fl, filters)
	}
	res := Result{Elapsed: time.Since(start)}
	for i, f := range filters {
		c := f.Counts()
		fmt.Fprintf(w, "  instance %d: %d records decided (%d unique, %d duplicates)\n", i+1, c.Records, c.Unique, c.NearDuplicate+c.ExactDuplicate+c.Contained)
		res.Counts.Add(c)
	}
	fmt.Fprintln(w)
	return res, errors.Join(err, stop())
}

func allReady(filters []Filter) bool {
	for _, f := range filters {
		if f.Ready() != nil {
			return false
		}
	}
	return true
}

// waitDone waits until the filters have decided fl.Records records between
// them and the group has committed the whole input.
func waitDone(ctx context.Context, fl Fleet, filters []Filter) error {
	for {
		var sum int64
		for _, f := range filters {
			sum += f.Counts().Records
		}
		if sum >= int64(fl.Records) && fl.Committed(ctx) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
