package compat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/segmentio/kafka-go"
)

// Range is an inclusive range of versions of one request.
type Range struct{ Min, Max int16 }

func (r Range) String() string {
	if r.Min == r.Max {
		return fmt.Sprintf("v%d", r.Min)
	}
	return fmt.Sprintf("v%d–v%d", r.Min, r.Max)
}

// Broker is what a broker's ApiVersions answer says it accepts, by API key.
type Broker map[int16]Range

// Probe asks the broker at addr for its API versions through d, which
// carries the filter's TLS and SASL settings.
func Probe(ctx context.Context, d *kafka.Dialer, addr string) (Broker, error) {
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	vs, err := conn.ApiVersions()
	if err != nil {
		return nil, err
	}
	b := make(Broker, len(vs))
	for _, v := range vs {
		b[int16(v.ApiKey)] = Range{int16(v.MinVersion), int16(v.MaxVersion)}
	}
	return b, nil
}

// Row is one request checked against one broker.
type Row struct {
	Request
	Broker  Range // what the broker accepts
	Offered bool  // the broker lists the request at all
	Sent    int16 // the version kafka-go sends it; -1: none it can send
	Skipped bool  // not sent to this broker (a kafka.Conn's SaslAuthenticate after SaslHandshake v0, an optional request not offered)
}

// OK reports whether the broker accepts what kafka-go sends.
func (r Row) OK() bool {
	return r.Skipped || (r.Offered && r.Sent >= 0 && r.Broker.Min <= r.Sent && r.Sent <= r.Broker.Max)
}

// Check compares each request with what broker b accepts.
func Check(b Broker, reqs []Request) []Row {
	rows := make([]Row, len(reqs))
	for i, req := range reqs {
		r := Row{Request: req, Sent: -1}
		r.Broker, r.Offered = b[req.Key]
		if r.Offered {
			r.Sent = req.Pick(r.Broker)
		}
		r.Skipped = req.Key == SaslAuthenticate && req.Part == Conn && unframedSASL(b) || req.Optional && !r.Offered
		rows[i] = r
	}
	return rows
}

// unframedSASL reports whether a kafka.Conn shakes hands with SaslHandshake
// v0, after which it writes the SASL bytes unframed instead of in
// SaslAuthenticate. A kafka.Transport has no such fallback: it sends
// SaslAuthenticate whatever the handshake's version (transport.go,
// authenticateSASL), so a broker without it (before Kafka 1.0) refuses it.
func unframedSASL(b Broker) bool {
	hs := Request{Key: SaslHandshake, Part: Conn, conn: []int16{0, 1}}
	r, ok := b[SaslHandshake]
	return ok && hs.Pick(r) == 0
}

// Err is nil when every row is OK, else an error naming each refused request,
// both version ranges and what to do.
func Err(addr string, rows []Row) error {
	var errs []error
	for _, r := range rows {
		if !r.OK() {
			errs = append(errs, fmt.Errorf("kafka %s: %s", addr, r.problem()))
		}
	}
	return errors.Join(errs...)
}

// problem explains a refused row.
func (r Row) problem() string {
	sends := fmt.Sprintf("%s (API key %d) is sent by kafka-go %s's %s as %s", r.Name(), r.Key, KafkaGo, r.Part, r.Versions())
	switch {
	case !r.Offered:
		return sends + ", but the broker does not offer it at all; it is needed for " + r.Use + ": use a broker that has it (README, Kafka compatibility)"
	case r.Sent < 0 || r.Sent > r.Broker.Max:
		return fmt.Sprintf("%s, but the broker accepts only %s: the broker is older than kafka-go supports; upgrade it (README, Kafka compatibility)", sends, r.Broker)
	default:
		return fmt.Sprintf("%s and would send v%d, but the broker accepts only %s: this broker removed the version kafka-go sends; "+
			"run a broker release that still accepts it (README, Kafka compatibility) until dedupstream moves to a kafka-go that sends v%d or later", sends, r.Sent, r.Broker, r.Broker.Min)
	}
}

// WriteTable prints rows as a table for an operator.
func WriteTable(w io.Writer, addr string, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "broker %s\n", addr)
	fmt.Fprintln(tw, "request\tkey\tkafka-go part\tkafka-go sends\tbroker accepts\tsent\tresult\tused for")
	for _, r := range rows {
		broker, sent := "-", "-"
		if r.Offered {
			broker = r.Broker.String()
		}
		if r.Sent >= 0 {
			sent = fmt.Sprintf("v%d", r.Sent)
		}
		result := "ok"
		switch {
		case r.Skipped:
			result, sent = "not sent", "-"
		case !r.OK():
			result = "REFUSED"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name(), r.Key, strings.TrimPrefix(string(r.Part), "kafka."), r.Versions(), broker, sent, result, r.Use)
	}
	return tw.Flush()
}
