package demo

import (
	"context"
	"io"
	"time"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// The demo's topics and its filters' consumer group.
const (
	Input, Output, DeadLetter, Duplicates = "pages", "pages.out", "pages.dlq", "pages.dups"
	Group                                 = "dedupstream-demo"
)

// producerID is the client id of the records the demo produces.
const producerID = "dedupstream-tools"

// StartBroker starts an embedded broker holding the demo's topics with
// partitions partitions each.
func StartBroker(partitions int) (*embedded.Broker, error) {
	return embedded.Start(embedded.Options{
		Topics: []string{Input, Output, DeadLetter, Duplicates}, Partitions: partitions,
		MinSessionTimeout: 100 * time.Millisecond, // instances that stop leave at once
	})
}

// Setup is what Execute runs: the pages, the brokers at Addr reached with
// Security, and Instances filters (1: the single-instance filter; more
// share one sharded index) that New builds, instance i from 0.
type Setup struct {
	Pages     Set
	Addr      string
	Security  stream.Security
	Instances int
	New       func(i int) (Filter, error)
	Examples  int // example duplicate pairs to print
}

// Execute is the run of "dedupstream demo": it produces the pages to Input
// in order, runs the filters until they have decided every record (RunOne,
// or RunFleet), reads the output topics back and writes the summary to w.
func Execute(ctx context.Context, w io.Writer, s Setup) error {
	StampInOrder(s.Pages.Msgs)
	produce := func(ctx context.Context) error {
		return embedded.Produce(ctx, s.Security.Transport(producerID), s.Addr, Input, s.Pages.Msgs)
	}
	var res Result
	var err error
	if s.Instances > 1 {
		res, err = RunFleet(ctx, Fleet{Instances: s.Instances, New: s.New, Produce: produce, Records: len(s.Pages.Msgs),
			Committed: func(ctx context.Context) bool {
				lag, err := embedded.GroupLagWith(ctx, s.Security.Transport(Group), s.Addr, Group, Input)
				return err == nil && lag == 0
			}}, w)
	} else {
		res, err = runSingle(ctx, s, produce)
	}
	if err != nil {
		return err
	}
	out, err := ReadOutputs(ctx, s.Security.Dialer(Group), s.Addr, Output, Duplicates, DeadLetter)
	if err != nil {
		return err
	}
	WriteSummary(w, s.Pages, res.Counts, res.Elapsed, out, s.Examples)
	return nil
}

// runSingle produces the pages, then runs the one filter over them.
func runSingle(ctx context.Context, s Setup, produce func(context.Context) error) (Result, error) {
	if err := produce(ctx); err != nil {
		return Result{}, err
	}
	f, err := s.New(0)
	if err != nil {
		return Result{}, err
	}
	return RunOne(ctx, f, len(s.Pages.Msgs))
}
