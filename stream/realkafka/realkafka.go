// Package realkafka starts, for tests, the real Apache Kafka 2.4.0 broker
// (with its ZooKeeper) kept in shared/kafka-2.4.0 beside the repository, which
// enforces what the embedded broker does not: max.message.bytes, real group
// coordination, a log on disk that survives a SIGKILL. A Broker is safe for
// concurrent use.
package realkafka

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"
)

// ErrAbsent is returned, wrapped, when the broker's scripts or Java are not
// on this machine: tests skip with its message.
var ErrAbsent = errors.New("realkafka: the real Kafka broker is not available")

// Broker is a running Kafka 2.4.0 broker on 127.0.0.1.
type Broker struct {
	home, dir string
	addr      string

	mu     sync.Mutex
	kafk   *os.Process   // the broker started by Restart, if any (start.sh's is in kafka.pid)
	exited chan struct{} // closed when kafk has exited
}

// Home finds shared/kafka-2.4.0 in the working directory or the nearest
// directory above it that has one, and checks that Java is installed.
func Home() (string, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return "", fmt.Errorf("%w: no java on PATH", ErrAbsent)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		home := filepath.Join(d, "shared", "kafka-2.4.0")
		if _, err := os.Stat(filepath.Join(home, "start.sh")); err == nil {
			return home, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w: shared/kafka-2.4.0 not found above %s", ErrAbsent, wd)
		}
	}
}

// Start starts a broker whose data, logs and pids live in dir, with the
// given server.properties lines added (e.g. "message.max.bytes=500000").
// It takes about five seconds.
func Start(dir string, props ...string) (*Broker, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(filepath.Join(home, "start.sh"), append([]string{dir}, props...)...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("start kafka in %s: %w", dir, err)
	}
	b := &Broker{home: home, dir: dir, addr: strings.TrimSpace(string(out))}
	return b, b.waitReady(60 * time.Second)
}

// Addr is the broker's bootstrap address.
func (b *Broker) Addr() string { return b.addr }

// Dir is the directory of its data and logs (server.log, kafka.out).
func (b *Broker) Dir() string { return b.dir }

// Stop stops the broker and its ZooKeeper (SIGTERM, then SIGKILL).
func (b *Broker) Stop() error {
	b.Kill()
	return exec.Command(filepath.Join(b.home, "stop.sh"), b.dir).Run()
}

// Kill SIGKILLs the broker (not its ZooKeeper), as a crash would.
func (b *Broker) Kill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.kafk != nil {
		b.kafk.Kill() //nolint:errcheck // it may have exited
		<-b.exited
		b.kafk = nil
		return
	}
	if pid, err := readPid(filepath.Join(b.dir, "kafka.pid")); err == nil {
		p, _ := os.FindProcess(pid) // never fails on Unix
		p.Kill()                    //nolint:errcheck // it may have exited
		for i := 0; i < 100 && p.Signal(syscall.Signal(0)) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// Restart starts the broker again on its log and its port, after a Kill,
// with the command line start.sh gives it. A broker started while
// ZooKeeper still holds the killed one's registration (until its session
// times out, 6 s in Kafka 2.4) exits at once; it is started again until it
// stays up.
func (b *Broker) Restart() error {
	deadline := time.Now().Add(90 * time.Second)
	for {
		if err := b.startKafka(); err != nil {
			return err
		}
		err := b.waitReady(time.Until(deadline))
		if err == nil || !b.hasExited() || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// hasExited reports whether the broker Restart started has exited.
func (b *Broker) hasExited() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.kafk == nil {
		return false
	}
	select {
	case <-b.exited:
		return true
	default:
		return false
	}
}

func (b *Broker) startKafka() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	cmd := exec.Command("java", "-Xmx1g",
		"-Dlog4j.configuration=file:"+filepath.Join(b.home, "log4j.properties"), "-Dkafka.logs.dir="+b.dir,
		"-cp", filepath.Join(b.home, "libs", "*"), "kafka.Kafka", filepath.Join(b.dir, "server.properties"))
	out, err := os.OpenFile(filepath.Join(b.dir, "kafka.out"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restart kafka: %w", err)
	}
	b.kafk, b.exited = cmd.Process, make(chan struct{})
	go func(exited chan struct{}) { cmd.Wait(); close(exited) }(b.exited) //nolint:errcheck // its exit is what is watched
	return os.WriteFile(filepath.Join(b.dir, "kafka.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
}

// waitReady waits until the broker answers metadata with itself as the
// controller, which a restarted broker does once it has rejoined
// ZooKeeper.
func (b *Broker) waitReady(d time.Duration) error {
	c, done := b.client(2 * time.Second)
	defer done()
	deadline := time.Now().Add(d)
	var err error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var meta *kafka.MetadataResponse
		meta, err = c.Metadata(ctx, &kafka.MetadataRequest{})
		cancel()
		if err == nil && meta.Controller.Port != 0 {
			return nil
		}
		if b.hasExited() {
			return fmt.Errorf("kafka at %s exited while starting (see %s)", b.addr, filepath.Join(b.dir, "server.log"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("kafka at %s not ready after %s: %v (see %s)", b.addr, d, err, filepath.Join(b.dir, "server.log"))
}

// CreateTopic creates topic with partitions and the given topic configs
// (e.g. "max.message.bytes", "2000000"), replication 1.
func (b *Broker) CreateTopic(ctx context.Context, topic string, partitions int, configs ...string) error {
	c, done := b.client(30 * time.Second)
	defer done()
	tc := kafka.TopicConfig{Topic: topic, NumPartitions: partitions, ReplicationFactor: 1}
	for i := 0; i+1 < len(configs); i += 2 {
		tc.ConfigEntries = append(tc.ConfigEntries, kafka.ConfigEntry{ConfigName: configs[i], ConfigValue: configs[i+1]})
	}
	resp, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{tc}})
	if err == nil {
		err = resp.Errors[topic]
	}
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	// The broker answers before every partition has its leader.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		meta, err := c.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
		if err == nil && len(meta.Topics) == 1 && meta.Topics[0].Error == nil && len(meta.Topics[0].Partitions) == partitions &&
			!slices.ContainsFunc(meta.Topics[0].Partitions, func(p kafka.Partition) bool { return p.Leader.Port == 0 || p.Error != nil }) {
			return nil
		}
	}
	return fmt.Errorf("topic %s: partitions without a leader 30s after it was created", topic)
}

// DeleteTopic deletes topic.
func (b *Broker) DeleteTopic(ctx context.Context, topic string) error {
	c, done := b.client(30 * time.Second)
	defer done()
	resp, err := c.DeleteTopics(ctx, &kafka.DeleteTopicsRequest{Topics: []string{topic}})
	if err == nil {
		err = resp.Errors[topic]
	}
	if err != nil {
		return fmt.Errorf("delete topic %s: %w", topic, err)
	}
	return nil
}

// client is a client of the broker, and the func that closes its connections.
func (b *Broker) client(timeout time.Duration) (*kafka.Client, func()) {
	tr := &kafka.Transport{}
	return &kafka.Client{Addr: kafka.TCP(b.addr), Timeout: timeout, Transport: tr}, tr.CloseIdleConnections
}

func readPid(p string) (int, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}
