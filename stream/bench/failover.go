package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// Failover is what a fleet run with FleetOptions.Failover measured: the last
// instance SIGKILLed after the fleet had committed the whole input, and how
// long the others took to serve every shard again.
type Failover struct {
	Settled time.Duration // how long the fleet took to go idle after the run (standbys catching up)
	Killed  int           // the instance killed
	Shards  []int         // the shards it owned
	Took    time.Duration // from the SIGKILL until the others served all shards
	Warm    int           // of its shards, reopened from a local or standby copy
	Rebuilt int           // of its shards, rebuilt from the start of the sequence log
}

func (f *Failover) seconds() float64 {
	if f == nil {
		return 0
	}
	return f.Took.Seconds()
}

// shardLog follows one instance's log (info level, JSON) for what it says of
// its index shards: the latest assignment, which of those shards serve, and,
// once marked, whether an assignment came after the mark and the first
// opening of each shard after it.
type shardLog struct {
	mu      sync.Mutex
	owned   []int
	serving map[int]bool
	marked  bool             // mark has been called
	ended   bool             // the log ended: the process exited
	fresh   bool             // the latest assignment came after the mark
	opened  map[int]logEntry // the first opening of each shard after the mark
}

// logEntry is the part of a log line shardLog reads.
type logEntry struct {
	Level      string `json:"level"`
	Msg        string `json:"msg"`
	Shards     []int  `json:"shards"`
	Shard      int    `json:"shard"`
	Standby    bool   `json:"standby"`
	ReplayFrom int64  `json:"replay_from"`
	AnswerFrom int64  `json:"answer_from"`
}

// watchShards follows the shard lines of p's log (info level, JSON, on its
// stderr); other lines above info go on to this process's stderr.
func watchShards(p *exec.Cmd) (*shardLog, error) {
	p.Stderr = nil
	r, err := p.StderrPipe()
	if err != nil {
		return nil, err
	}
	l := &shardLog{serving: map[int]bool{}, opened: map[int]logEntry{}}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var e logEntry
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.Level != "info" && e.Level != "debug" {
				fmt.Fprintln(os.Stderr, sc.Text())
			}
			l.note(e)
		}
		l.mu.Lock()
		l.ended = true
		l.mu.Unlock()
	}()
	return l, nil
}

func (l *shardLog) note(e logEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e.Msg {
	case "index shards assigned":
		l.owned, l.serving, l.fresh = e.Shards, map[int]bool{}, l.marked
	case "shard serving":
		l.serving[e.Shard] = true
	case "shard opened":
		if _, seen := l.opened[e.Shard]; l.marked && !e.Standby && !seen {
			l.opened[e.Shard] = e
		}
	}
}

func (l *shardLog) mark() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.marked = true
}

// state returns the shards of the latest assignment, whether all of them
// serve, and whether that assignment came after the mark.
func (l *shardLog) state() (owned []int, serving, fresh bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	serving = true
	for _, s := range l.owned {
		serving = serving && l.serving[s]
	}
	return l.owned, serving, l.fresh
}

// covered reports whether the logs' latest assignments — after their mark,
// if fresh — are all of the shards 0…n-1, each once, and all serve.
func covered(logs []*shardLog, n int, fresh bool) bool {
	seen := make([]bool, n)
	count := 0
	for _, l := range logs {
		owned, serving, after := l.state()
		if !serving || fresh && !after {
			return false
		}
		for _, s := range owned {
			if s < 0 || s >= n || seen[s] {
				return false
			}
			seen[s] = true
			count++
		}
	}
	return count == n
}

// waitCovered waits until covered(logs, n, fresh), for up to 10 minutes,
// unless a log ends first.
func waitCovered(ctx context.Context, logs []*shardLog, n int, fresh bool) error {
	deadline := time.Now().Add(10 * time.Minute)
	for !covered(logs, n, fresh) {
		for i, l := range logs {
			l.mu.Lock()
			ended := l.ended
			l.mu.Unlock()
			if ended {
				return fmt.Errorf("instance %d exited before all %d shards served", i, n)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the instances did not serve all %d shards within 10 minutes", n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// killOne SIGKILLs the last instance once the fleet serves every shard and
// is idle, and measures until the others serve all n shards between them in
// a generation of the index group that came after the kill.
func killOne(ctx context.Context, procs []*fleetProc, logs []*shardLog, n int) (*Failover, error) {
	if err := waitCovered(ctx, logs, n, false); err != nil {
		return nil, fmt.Errorf("failover, before the kill: %w", err)
	}
	k := len(procs) - 1
	f := &Failover{Killed: k, Settled: settle(ctx, procs)}
	owned, _, _ := logs[k].state()
	f.Shards = slices.Clone(owned)
	survivors := logs[:k]
	for _, l := range survivors {
		l.mark()
	}
	start := time.Now()
	if err := procs[k].Process.Kill(); err != nil {
		return nil, err
	}
	<-procs[k].done
	if err := waitCovered(ctx, survivors, n, true); err != nil {
		return nil, fmt.Errorf("failover, after the kill: %w", err)
	}
	f.Took = time.Since(start)
	for _, s := range f.Shards {
		for _, l := range survivors {
			l.mu.Lock()
			e, ok := l.opened[s]
			l.mu.Unlock()
			switch {
			case !ok:
			case e.ReplayFrom == -2 && e.AnswerFrom != 0: // no local copy: the log from its start
				f.Rebuilt++
			default:
				f.Warm++
			}
		}
	}
	return f, nil
}

// settle waits until every instance is idle — together under a tenth of a
// core over a second, so standbys have caught up with the sequence log — and
// returns how long that took (0 where /proc cannot tell).
func settle(ctx context.Context, procs []*fleetProc) time.Duration {
	start := time.Now()
	last, ok := fleetCPU(procs)
	for ok && time.Since(start) < 10*time.Minute && ctx.Err() == nil {
		time.Sleep(time.Second)
		var now time.Duration
		if now, ok = fleetCPU(procs); ok && now-last < 100*time.Millisecond {
			return time.Since(start)
		}
		last = now
	}
	return time.Since(start)
}
