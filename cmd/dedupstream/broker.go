package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"

	"github.com/dedupstream/dedupstream/stream/confkey"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// cmdBroker runs an embedded Kafka-protocol broker until signalled.
func cmdBroker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("broker", stderr)
	listen := fs.String("listen", "127.0.0.1:9092", "loopback host:port to listen on")
	topics := fs.String("topics", "pages,pages.out,pages.dlq", "comma-separated topics to create")
	parts := fs.Int("partitions", 1, "partitions per created topic")
	auto := fs.Bool("auto-create", true, "let clients create other topics on first use")
	dir := fs.String("data", "", "directory to persist the log in (empty: memory only)")
	minSession := fs.Duration("min-session-timeout", 0, "least consumer-group session timeout accepted (0: Kafka's 6s); lower it to fail over killed members fast in trials")
	cert := fs.String("tls-cert", "", "PEM certificate of a TLS listener (with --tls-key)")
	key := fs.String("tls-key", "", "PEM private key of --tls-cert")
	clientCA := fs.String("tls-client-ca", "", "PEM CAs whose client certificates the TLS listener requires (empty: none required)")
	users := fs.String("sasl-users", "", "file of SASL users, one \"MECHANISM USER PASSWORD\" a line (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512): clients must authenticate as one")
	if err := parse(fs, args); err != nil {
		return err
	}
	o := embedded.Options{
		Listen: *listen, Topics: confkey.SplitList(*topics), Partitions: *parts, AutoCreate: *auto, DataDir: *dir,
		MinSessionTimeout: *minSession,
	}
	var err error
	if o.TLS, err = brokerTLS(*cert, *key, *clientCA); err != nil {
		return err
	}
	if o.Users, err = brokerUsers(*users); err != nil {
		return err
	}
	b, err := embedded.Start(o)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(stdout, "broker listening on %s (topics: %s; tls %t, sasl users %d); Ctrl-C stops it\n", b.Addr(), *topics, o.TLS != nil, len(o.Users))
	<-ctx.Done()
	return nil
}

// brokerTLS is the listener's TLS configuration; nil without a certificate.
func brokerTLS(cert, key, clientCA string) (*tls.Config, error) {
	if cert == "" && key == "" {
		if clientCA != "" {
			return nil, fmt.Errorf("broker --tls-client-ca: needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("broker --tls-cert and --tls-key: %w", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if clientCA != "" {
		pem, err := os.ReadFile(clientCA)
		if err != nil {
			return nil, fmt.Errorf("broker --tls-client-ca: %w", err)
		}
		c.ClientCAs = x509.NewCertPool()
		if !c.ClientCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("broker --tls-client-ca %s: no PEM certificate in it", clientCA)
		}
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return c, nil
}

// brokerUsers reads the --sasl-users file. Passwords are read from a file so
// that they do not show in the process list.
func brokerUsers(path string) ([]embedded.User, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("broker --sasl-users: %w", err)
	}
	defer f.Close()
	return embedded.ReadUsers(f, "broker --sasl-users "+path)
}
