package main

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

	"github.com/dedupstream/dedupstream/stream/bench"
)

// failover is what bench --failover measured: the last instance SIGKILLed
// after the fleet had committed the whole input, and how long the others took
// to serve every shard again.
type failover struct {
	settled time.Duration // how long the fleet took to go idle after the run (standbys catching up)
	killed  int           // the instance killed
	shards  []int         // the shards it owned
	took    time.Duration // from the SIGKILL until the others served all shards
	warm    int           // of its shards, reopened from a local or standby copy
	rebuilt int           // of its shards, rebuilt from the start of the probe log
}

func (f *failover) seconds() float64 {
	if f == nil {
		return 0
	}
	return f.took.Seconds()
}

// shardLog follows one instance's log (info level, JSON) for what it says of
// its index shards: the latest assignment, which of those shards serve, and
// each shard opened after a mark.
type shardLog struct {
	mu      sync.Mutex
	gen     int32
	owned   []int
	serving map[int]bool
	mark    time.Time        // opened records shards opened after it
	opened  map[int]logEntry // the first opening of each shard after mark
}

// logEntry is the part of a log line shardLog reads.
type logEntry struct {
	Msg        string `json:"msg"`
	Generation int32  `json:"generation"`
	Shards     []int  `json:"shards"`
	Shard      int    `json:"shard"`
	Standby    bool   `json:"standby"`
	ReplayFrom int64  `json:"replay_from"`
	AnswerFrom int64  `json:"answer_from"`
}

// watchShards makes p log at info level and follows its shard lines; other
// lines above info go on to this process's stderr.
func watchShards(p *exec.Cmd) (*shardLog, error) {
	p.Env = append(p.Env, "DEDUPSTREAM_LOG_LEVEL=info") // the last of a key wins
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
			var lv struct {
				Level string `json:"level"`
			}
			_ = json.Unmarshal(sc.Bytes(), &lv)
			if json.Unmarshal(sc.Bytes(), &e) != nil || (lv.Level != "info" && lv.Level != "debug") {
				fmt.Fprintln(os.Stderr, sc.Text())
			}
			l.note(e)
		}
	}()
	return l, nil
}

func (l *shardLog) note(e logEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e.Msg {
	case "index shards assigned":
		l.gen, l.owned, l.serving = e.Generation, e.Shards, map[int]bool{}
	case "shard serving":
		l.serving[e.Shard] = true
	case "shard opened":
		if _, seen := l.opened[e.Shard]; !e.Standby && !seen && !l.mark.IsZero() {
			l.opened[e.Shard] = e
		}
	}
}

// state returns the shards of the latest assignment and whether all serve.
func (l *shardLog) state() (owned []int, serving bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.owned {
		if !l.serving[s] {
			return l.owned, false
		}
	}
	return l.owned, true
}

func (l *shardLog) setMark(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mark = t
}

// covered reports whether the shards the logs own and serve are all of 0…n-1,
// each once.
func covered(logs []*shardLog, n int) bool {
	seen := make([]bool, n)
	count := 0
	for _, l := range logs {
		owned, serving := l.state()
		if !serving {
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

// killOne SIGKILLs the last instance once the fleet serves every shard, and
// measures until the others serve all n shards between them.
func killOne(ctx context.Context, procs []*exec.Cmd, logs []*shardLog, n int) (*failover, error) {
	wait := func(logs []*shardLog, what string) error {
		deadline := time.Now().Add(10 * time.Minute)
		for !covered(logs, n) {
			if time.Now().After(deadline) {
				return fmt.Errorf("failover: %s: the instances did not serve all %d shards within 10 minutes", what, n)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
		return nil
	}
	if err := wait(logs, "before the kill"); err != nil {
		return nil, err
	}
	k := len(procs) - 1
	f := &failover{killed: k}
	f.settled = settle(ctx, procs)
	f.shards, _ = logs[k].state()
	f.shards = slices.Clone(f.shards)
	survivors := logs[:k]
	start := time.Now()
	for _, l := range survivors {
		l.setMark(start)
	}
	if err := procs[k].Process.Kill(); err != nil {
		return nil, err
	}
	_ = procs[k].Wait()
	// the survivors still serve the old assignment until the group notices
	// the loss, so wait for one that gives them the victim's shards
	for {
		ok := true
		for _, s := range f.shards {
			mine := false
			for _, l := range survivors {
				owned, _ := l.state()
				mine = mine || slices.Contains(owned, s)
			}
			ok = ok && mine
		}
		if ok {
			break
		}
		if time.Since(start) > 10*time.Minute {
			return nil, fmt.Errorf("failover: the shards %v of the killed instance were not reassigned within 10 minutes", f.shards)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := wait(survivors, "after the kill"); err != nil {
		return nil, err
	}
	f.took = time.Since(start)
	for _, s := range f.shards {
		for _, l := range survivors {
			l.mu.Lock()
			e, ok := l.opened[s]
			l.mu.Unlock()
			switch {
			case !ok:
			case e.ReplayFrom == -2 && e.AnswerFrom != 0: // no local copy: the log from its start
				f.rebuilt++
			default:
				f.warm++
			}
		}
	}
	return f, nil
}

// settle waits until every instance is idle — together under a tenth of a
// core over a second, so standbys have caught up with the probe log — and
// returns how long that took (0 where /proc cannot tell).
func settle(ctx context.Context, procs []*exec.Cmd) time.Duration {
	start := time.Now()
	total := func() (time.Duration, bool) {
		var sum time.Duration
		for _, p := range procs {
			t, ok := bench.ProcCPU(p.Process.Pid)
			if !ok {
				return 0, false
			}
			sum += t
		}
		return sum, true
	}
	last, ok := total()
	for ok && time.Since(start) < 10*time.Minute && ctx.Err() == nil {
		time.Sleep(time.Second)
		var now time.Duration
		if now, ok = total(); ok && now-last < 100*time.Millisecond {
			return time.Since(start)
		}
		last = now
	}
	return time.Since(start)
}
