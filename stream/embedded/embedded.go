// Package embedded runs an in-process Kafka-protocol broker (franz-go's kfake) on
// loopback for trials, demos and tests, and produces to and reads back from any
// broker for them (Produce, ReadAll); a Broker is safe for concurrent use.
package embedded

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// Options configure an embedded broker. The zero value listens on a random
// loopback port with one partition per seeded topic.
type Options struct {
	// Listen is host:port; the host must be a loopback address (kfake only
	// binds loopback). Empty or port 0 picks a free port.
	Listen string
	// Topics are created at start.
	Topics []string
	// Partitions per seeded topic; zero means 1.
	Partitions int
	// AutoCreate lets clients create topics by producing or fetching metadata.
	AutoCreate bool
	// DataDir, when set, persists the log so a restarted broker keeps its
	// records and committed offsets.
	DataDir string
	// MinSessionTimeout is the least consumer-group session timeout the
	// broker accepts; zero means Kafka's default, 6s. Tests that kill and
	// restart consumers lower it so a dead member is dropped quickly.
	MinSessionTimeout time.Duration
	// TLS, if set, makes the listener TLS with this server configuration.
	TLS *tls.Config
	// Users, if any, turn on SASL: clients must authenticate as one of them.
	Users []User
	// MaxVersions, if set, caps the request versions the broker advertises
	// and accepts, so that it answers as that Kafka release would
	// (kversion.V2_4_0() …); a request it does not list is refused.
	MaxVersions *kversion.Versions
	// WrapListener, if set, wraps the broker's plaintext listener, under TLS
	// if that is on: tests put a protocol shim there (stream/embedded/floor).
	WrapListener func(net.Listener) net.Listener
}

// User is a SASL user of the embedded broker.
type User struct {
	Mechanism string // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
	Name      string
	Password  string
}

// segmentBytes is the log segment size of the broker's partitions. kfake
// keeps an in-memory log's active segment in one slice that doubles as it
// fills, copying the old one, and does it on the goroutine that serves every
// request: with its default 100 MiB segments, each doubling to 128 MiB stalled
// every client of a 1M-document bench for 0.3-0.5 s, the broker spending a
// core zeroing fresh pages (perf; dedupstream bench).
// With 8 MiB segments a doubling copies at most 8 MiB.
const segmentBytes = 8 << 20

// Broker is a running embedded broker.
type Broker struct {
	cluster *kfake.Cluster
}

// Start starts a single-node broker.
func Start(o Options) (*Broker, error) {
	port, err := loopbackPort(o.Listen)
	if err != nil {
		return nil, err
	}
	parts := o.Partitions
	if parts <= 0 {
		parts = 1
	}
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.DefaultNumPartitions(parts),
		kfake.BrokerConfigs(map[string]string{"log.segment.bytes": strconv.Itoa(segmentBytes)})}
	if len(o.Topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(parts), o.Topics...))
	}
	if o.AutoCreate {
		opts = append(opts, kfake.AllowAutoTopicCreation())
	}
	if o.MinSessionTimeout > 0 {
		// As a broker setting, not kfake.GroupMinSessionTimeout: DescribeConfigs
		// then reports it (CheckKafka reads it), as a real broker does.
		opts = append(opts, kfake.BrokerConfigs(map[string]string{
			"group.min.session.timeout.ms": strconv.FormatInt(o.MinSessionTimeout.Milliseconds(), 10)}))
	}
	if o.DataDir != "" {
		opts = append(opts, kfake.DataDir(o.DataDir))
	}
	if o.TLS != nil {
		opts = append(opts, kfake.TLS(o.TLS))
	}
	if len(o.Users) > 0 {
		opts = append(opts, kfake.EnableSASL())
	}
	if o.MaxVersions != nil {
		opts = append(opts, kfake.MaxVersions(o.MaxVersions))
	}
	if o.WrapListener != nil {
		opts = append(opts, kfake.ListenFn(func(network, addr string) (net.Listener, error) {
			ln, err := net.Listen(network, addr)
			if err != nil {
				return nil, err
			}
			return o.WrapListener(ln), nil
		}))
	}
	for _, u := range o.Users {
		opts = append(opts, kfake.Superuser(u.Mechanism, u.Name, u.Password))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start embedded broker on %q: %w", o.Listen, err)
	}
	c.ControlKey(int16(kmsg.JoinGroup), capRebalanceWait)
	return &Broker{cluster: c}, nil
}

// maxRebalanceWait is the longest the embedded broker waits, after the last
// JoinGroup of a rebalance, for the members that have not rejoined.
//
// Kafka waits up to the members' rebalance timeout from the start of a
// rebalance. kfake starts that wait again with every JoinGroup (and every
// member that leaves or expires), while kafka-go gives up on a JoinGroup
// after its request timeout (5 s) plus the rebalance timeout from its own
// join: once members rejoin more than 5 s apart — a member killed and
// restarted, another slow to end its generation — the first ones time out,
// leave, and join again as new members, which starts the wait again for
// all. With a 30 s session timeout that kept a group of four instances
// rejoining for as long as it was watched (TestSIGKILLSharded with
// -sharded-session-timeout 30s -sharded-restart-after 8s: 2 runs of 2, every
// JoinGroup timing out 38 s after it was sent; on Kafka 2.4.0 the same runs
// drain). Capping the wait at 5 s keeps every client's deadline after the
// broker's answer; a member that rejoins later than that misses one
// generation and joins the next, as one past its rebalance timeout does on
// Kafka.
const maxRebalanceWait = 5 * time.Second

// capRebalanceWait lowers a JoinGroup's rebalance timeout to
// maxRebalanceWait and lets the broker handle the request as usual.
func capRebalanceWait(r kmsg.Request) (kmsg.Response, error, bool) {
	if j, ok := r.(*kmsg.JoinGroupRequest); ok {
		j.RebalanceTimeoutMillis = min(j.RebalanceTimeoutMillis, int32(maxRebalanceWait/time.Millisecond))
	}
	return nil, nil, false
}

// Addr is the broker's host:port.
func (b *Broker) Addr() string { return b.cluster.ListenAddrs()[0] }

// Close stops the broker and closes client connections.
func (b *Broker) Close() { b.cluster.Close() }

func loopbackPort(listen string) (int, error) {
	if listen == "" {
		return 0, nil
	}
	host, p, err := net.SplitHostPort(listen)
	if err != nil {
		return 0, fmt.Errorf("broker listen address %q: %w", listen, err)
	}
	if host != "" && host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return 0, fmt.Errorf("broker listen address %q: the embedded broker binds only loopback (127.0.0.1)", listen)
		}
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return 0, fmt.Errorf("broker listen address %q: bad port", listen)
	}
	return port, nil
}
