package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/corpus"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// benchSource makes the bench's documents: the corpus's documents in order,
// then word-shuffled variants of them (same length and vocabulary, new
// shingles), with a share of near-copies of recent documents mixed in.
type benchSource struct {
	name     string
	bodies   []string
	copyRate float64
}

func loadBenchSource(o benchOptions) (*benchSource, error) {
	s := &benchSource{name: o.corpus, copyRate: o.copyRate}
	err := corpus.Read(o.corpus, 0, func(d corpus.Doc) error {
		if len(strings.Fields(d.Body)) >= 10 {
			s.bodies = append(s.bodies, d.Body)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bench corpus: %w", err)
	}
	if len(s.bodies) == 0 {
		return nil, fmt.Errorf("bench corpus %s has no documents", o.corpus)
	}
	return s, nil
}

// doc returns document i; the same i always gives the same text.
func (s *benchSource) doc(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	if i > 0 && r.Float64() < s.copyRate {
		j := i - 1 - r.IntN(min(i, 1000))
		return editWords(s.doc(j), r, 0.01)
	}
	body := s.bodies[i%len(s.bodies)]
	if i < len(s.bodies) {
		return body
	}
	words := strings.Fields(body)
	r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
	return strings.Join(words, " ")
}

// editWords replaces a fraction rate of the words of text.
func editWords(text string, r *rand.Rand, rate float64) string {
	words := strings.Fields(text)
	for k := range words {
		if r.Float64() < rate {
			words[k] = "edit" + strconv.Itoa(r.IntN(1e6))
		}
	}
	return strings.Join(words, " ")
}

// produceBench writes o.docs documents as JSON records and returns their bytes.
func produceBench(ctx context.Context, addr string, s *benchSource, o benchOptions) (int64, error) {
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: "bench", Balancer: &kafka.Hash{},
		BatchSize: 1000, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	var total int64
	msgs := make([]kafka.Message, 0, 5000)
	for i := 0; i < o.docs; i++ {
		m := benchMessage("d"+strconv.Itoa(i), s.doc(i))
		total += int64(len(m.Value))
		msgs = append(msgs, m)
		if len(msgs) == cap(msgs) || i == o.docs-1 {
			if err := w.WriteMessages(ctx, msgs...); err != nil {
				return total, fmt.Errorf("produce bench documents: %w", err)
			}
			msgs = msgs[:0]
		}
	}
	return total, nil
}

// benchMessage is a bench document as the JSON record the filter reads,
// keyed by its id.
func benchMessage(id, body string) kafka.Message {
	return kafka.Message{Key: []byte(id), Value: prepare.Input{ID: id, Body: body}.JSON()}
}

// benchBroker starts "dedupstream broker" as a child process on a free loopback
// port, unless -brokers names one, and returns its address.
func benchBroker(ctx context.Context, o benchOptions) (string, func(), error) {
	if o.brokers != "" {
		return o.brokers, func() {}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "broker", "--listen", "127.0.0.1:0",
		"--topics", strings.Join([]string{"bench", "bench.out", "bench.pass", "bench.dlq",
			latBroker, latPassIn, latPassOut, latFilterIn, latFilterOut}, ","), "--partitions", strconv.Itoa(o.partitions),
		"--min-session-timeout", "100ms") // fleet mode: instances that stop leave the group at once
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start broker process: %w", err)
	}
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	var addr string
	if _, serr := fmt.Sscanf(line, "broker listening on %s", &addr); err != nil || serr != nil {
		stop()
		return "", nil, fmt.Errorf("broker process said %q: %v", line, err)
	}
	return addr, stop, nil
}
