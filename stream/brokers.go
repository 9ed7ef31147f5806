package stream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/compat"
)

// BrokerVersions is one broker's answer to ApiVersions.
type BrokerVersions struct {
	Addr     string
	Versions compat.Broker
}

// ProbeBrokers asks every broker of the cluster for its API versions: the
// first of k.Brokers that answers, then each broker its metadata lists, over
// connections made as the reader's are (TLS, SASL). A failure after the TCP
// connection — a refused certificate or password — is returned as err, with
// what was tried; brokers that cannot be reached are joined in unreachable.
func ProbeBrokers(ctx context.Context, k KafkaConfig, sec Security) (found []BrokerVersions, unreachable, err error) {
	d := sec.dialer(k.ClientID)
	seen := make(map[string]bool)
	probe := func(addr string) error {
		seen[addr] = true
		v, err := compat.Probe(ctx, d, addr)
		if err == nil {
			found = append(found, BrokerVersions{addr, v})
			return nil
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			unreachable = errors.Join(unreachable, err)
			return nil
		}
		return connectError(k, sec, addr, err)
	}
	for _, addr := range k.Brokers {
		if err := probe(addr); err != nil || len(found) > 0 {
			if err != nil {
				return found, unreachable, err
			}
			break
		}
	}
	if len(found) == 0 {
		return nil, unreachable, nil
	}
	for _, addr := range clusterBrokers(ctx, d, found[0].Addr) {
		if !seen[addr] {
			if err := probe(addr); err != nil {
				return found, unreachable, err
			}
		}
	}
	return found, unreachable, nil
}

// clusterBrokers lists the addresses the cluster's metadata advertises; none
// if it cannot be read (the bootstrap broker's check then stands alone).
func clusterBrokers(ctx context.Context, d *kafka.Dialer, addr string) []string {
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil
	}
	defer conn.Close()
	brokers, err := conn.Brokers()
	if err != nil {
		return nil
	}
	addrs := make([]string, len(brokers))
	for i, b := range brokers {
		addrs[i] = net.JoinHostPort(b.Host, strconv.Itoa(b.Port))
	}
	return addrs
}

// CheckBrokers connects to the brokers once, as the reader and writer will,
// and compares each broker's API versions with those kafka-go sends for the
// requests the filter makes (stream/compat), before the consumer group is
// joined. A TLS or SASL failure (a wrong password, an unknown CA) or a
// request version the brokers refuse stops the start with a clear error
// instead of being retried in the background. An unreachable cluster is not
// an error: it is logged, the check is skipped (reached is false), and the
// reader keeps trying, as it does when a broker goes away later.
func CheckBrokers(ctx context.Context, k KafkaConfig, sec Security, needs compat.Needs, log *zap.Logger) (reached bool, err error) {
	found, unreachable, err := ProbeBrokers(ctx, k, sec)
	if err != nil {
		return false, err
	}
	if unreachable != nil {
		log.Warn("broker not reachable; the consumer keeps retrying", zap.Error(unreachable))
	}
	if len(found) == 0 {
		log.Warn("no broker reachable yet: the protocol and topic checks are skipped")
		return false, nil
	}
	reqs := compat.Requests(needs)
	var errs []error
	for _, b := range found {
		errs = append(errs, compat.Err(b.Addr, compat.Check(b.Versions, reqs)))
	}
	if err := errors.Join(errs...); err != nil {
		return true, fmt.Errorf("kafka protocol check (dedupstream check --brokers %s prints the table): %w", k.Brokers[0], err)
	}
	log.Info("kafka protocol check passed", zap.Int("brokers", len(found)), zap.String("kafka_go", compat.KafkaGo))
	return true, nil
}
