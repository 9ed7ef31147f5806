package stream

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// NewSecurity builds the connections' TLS configuration and SASL mechanism
// from kafka.tls and kafka.sasl, reading the files they name with read (the
// command passes os.ReadFile; the package reads no file itself). k must be
// valid.
func NewSecurity(k KafkaConfig, read func(path string) ([]byte, error)) (Security, error) {
	var sec Security
	var err error
	if k.TLS.Enabled {
		if sec.TLS, err = tlsConfig(k.TLS, read); err != nil {
			return sec, err
		}
	}
	if k.SASL.Mechanism != "" {
		if sec.SASL, err = saslMechanism(k.SASL, read); err != nil {
			return sec, err
		}
	}
	return sec, nil
}

func tlsConfig(c TLSConfig, read func(string) ([]byte, error)) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName, InsecureSkipVerify: c.InsecureSkipVerify} //nolint:gosec // opt-in, documented as for tests
	if c.CAFile != "" {
		pem, err := read(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.ca_file: %w", err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("kafka.tls.ca_file %s: no PEM certificate in it", c.CAFile)
		}
	}
	if c.CertFile != "" {
		cert, err := keyPair(c.CertFile, c.KeyFile, read)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.cert_file and key_file: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// keyPair is tls.LoadX509KeyPair with the files read by read.
func keyPair(certFile, keyFile string, read func(string) ([]byte, error)) (tls.Certificate, error) {
	cert, err := read(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := read(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(cert, key)
}

func saslMechanism(c SASLConfig, read func(string) ([]byte, error)) (sasl.Mechanism, error) {
	pass := c.Password.Reveal()
	if c.PasswordFile != "" {
		b, err := read(c.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.sasl.password_file: %w", err)
		}
		pass = strings.TrimRight(string(b), "\r\n")
	}
	switch c.Mechanism {
	case SASLPlain:
		return plain.Mechanism{Username: c.Username, Password: pass}, nil
	case SASLScramSHA256:
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
