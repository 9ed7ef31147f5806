package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"

	"github.com/dedupstream/dedupstream/stream"
)

// kafkaSecurity reads the files named by kafka.tls and kafka.sasl and builds
// the pipeline's TLS configuration and SASL mechanism. k must be valid.
func kafkaSecurity(k stream.KafkaConfig) (stream.Security, error) {
	var sec stream.Security
	var err error
	if k.TLS.Enabled {
		if sec.TLS, err = tlsConfig(k.TLS); err != nil {
			return sec, err
		}
	}
	if k.SASL.Mechanism != "" {
		if sec.SASL, err = saslMechanism(k.SASL); err != nil {
			return sec, err
		}
	}
	return sec, nil
}

// toolSecurity reads the security settings "run" reads — kafka.tls and
// kafka.sasl of the configuration file at path (may be empty) and the
// DEDUPSTREAM_KAFKA_TLS_* and _SASL_* variables — for the tools that talk to
// a cluster: gen --topic, demo --brokers, bench --brokers.
func toolSecurity(path string) (stream.Security, error) {
	k, err := toolKafka(path)
	if err != nil {
		return stream.Security{}, err
	}
	return kafkaSecurity(k)
}

// toolKafka is the kafka section of the configuration at path (may be
// empty) with the environment applied, defaulted and valid.
func toolKafka(path string) (stream.KafkaConfig, error) {
	cfg, err := loadConfig(path, os.Environ())
	if err != nil {
		return stream.KafkaConfig{}, err
	}
	cfg.ensureDefaults()
	return cfg.Kafka, cfg.validate()
}

func tlsConfig(c stream.TLSConfig) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName, InsecureSkipVerify: c.InsecureSkipVerify} //nolint:gosec // opt-in, documented as for tests
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.ca_file: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("kafka.tls.ca_file %s: no PEM certificate in it", c.CAFile)
		}
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.cert_file and key_file: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

func saslMechanism(c stream.SASLConfig) (sasl.Mechanism, error) {
	pass := c.Password.Reveal()
	if c.PasswordFile != "" {
		b, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.sasl.password_file: %w", err)
		}
		pass = strings.TrimRight(string(b), "\r\n")
	}
	switch c.Mechanism {
	case stream.SASLPlain:
		return plain.Mechanism{Username: c.Username, Password: pass}, nil
	case stream.SASLScramSHA256:
		return scramMechanism(scram.SHA256, c.Username, pass)
	default:
		return scramMechanism(scram.SHA512, c.Username, pass)
	}
}

func scramMechanism(algo scram.Algorithm, user, pass string) (sasl.Mechanism, error) {
	m, err := scram.Mechanism(algo, user, pass)
	if err != nil {
		// The error may quote the username, never the password.
		return nil, fmt.Errorf("kafka.sasl: %w", err)
	}
	return m, nil
}
