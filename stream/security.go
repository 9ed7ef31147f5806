package stream

import (
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
)

// TLSConfig is the client side of TLS to the brokers. The files are read by
// the caller, which passes its reader to NewSecurity.
type TLSConfig struct {
	Enabled bool `yaml:"enabled"`
	// CAFile is a PEM bundle of the CAs that sign the brokers' certificates;
	// empty means the system roots.
	CAFile string `yaml:"ca_file"`
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// brokers that require client authentication (ssl.client.auth=required).
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// ServerName is checked against the broker's certificate; empty means the
	// host of the broker address.
	ServerName string `yaml:"server_name"`
	// InsecureSkipVerify accepts any broker certificate (tests only).
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
}

// SASL mechanisms.
const (
	SASLPlain       = "plain"
	SASLScramSHA256 = "scram-sha-256"
	SASLScramSHA512 = "scram-sha-512"
)

// SASLConfig authenticates to the brokers.
type SASLConfig struct {
	// Mechanism is plain, scram-sha-256 or scram-sha-512; empty disables SASL.
	Mechanism string `yaml:"mechanism"`
	Username  string `yaml:"username"`
	// Password, or PasswordFile naming a file that holds it (a trailing newline
	// is ignored); exactly one of them is set when Mechanism is.
	Password     Secret `yaml:"password"`
	PasswordFile string `yaml:"password_file"`
}

// Secret is a string that prints, logs and marshals as "[redacted]" when set,
// so a dumped configuration never shows it. Reveal returns the value.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret itself.
func (s Secret) Reveal() string { return string(s) }

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// MarshalText is used by YAML, JSON and zap's reflection encoder.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText sets the secret from configuration text.
func (s *Secret) UnmarshalText(b []byte) error {
	*s = Secret(b)
	return nil
}

// Security is how the pipeline's connections to the brokers are encrypted and
// authenticated, built from TLSConfig and SASLConfig by NewSecurity.
type Security struct {
	TLS  *tls.Config    // nil: plaintext
	SASL sasl.Mechanism // nil: no authentication
}

// Dialer returns a kafka-go dialer with these settings, for readers and consumer groups.
func (s Security) Dialer(clientID string) *kafka.Dialer { return s.dialer(clientID) }

// Transport returns a kafka-go transport with these settings, for writers and clients.
func (s Security) Transport(clientID string) *kafka.Transport { return s.transport(clientID) }

func (s Security) dialer(clientID string) *kafka.Dialer {
	return &kafka.Dialer{ClientID: clientID, Timeout: dialTimeout, DualStack: true, TLS: s.TLS, SASLMechanism: s.SASL}
}

func (s Security) transport(clientID string) *kafka.Transport {
	return &kafka.Transport{ClientID: clientID, DialTimeout: dialTimeout, TLS: s.TLS, SASL: s.SASL}
}

// validateSecurity checks kafka.tls and kafka.sasl without reading any file.
func (k KafkaConfig) validateSecurity() []error {
	var errs []error
	t, s := k.TLS, k.SASL
	if !t.Enabled && (t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != "" || t.InsecureSkipVerify) {
		errs = append(errs, errors.New("kafka.tls.enabled: false, but other kafka.tls keys are set"))
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		errs = append(errs, errors.New("kafka.tls.cert_file and kafka.tls.key_file: set both or neither"))
	}
	switch s.Mechanism {
	case "":
		if s.Username != "" || s.Password != "" || s.PasswordFile != "" {
			errs = append(errs, errors.New("kafka.sasl.mechanism: empty (SASL off), but a username or password is set"))
		}
		return errs
	case SASLPlain, SASLScramSHA256, SASLScramSHA512:
	default:
		return append(errs, fmt.Errorf("kafka.sasl.mechanism: want plain, scram-sha-256 or scram-sha-512, got %q", s.Mechanism))
	}
	if s.Username == "" {
		errs = append(errs, fmt.Errorf("kafka.sasl.username: required with mechanism %s", s.Mechanism))
	}
	if (s.Password == "") == (s.PasswordFile == "") {
		errs = append(errs, errors.New("kafka.sasl.password: set exactly one of password (or DEDUPSTREAM_KAFKA_SASL_PASSWORD) and password_file"))
	}
	return errs
}

// connectError explains a failure after the TCP connection was made: the TLS
// handshake or SASL authentication was refused.
func connectError(k KafkaConfig, sec Security, addr string, err error) error {
	s := k.SASL
	if errors.Is(err, kafka.SASLAuthenticationFailed) {
		return fmt.Errorf("kafka %s: SASL %s as user %q refused (wrong username or password?): %w", addr, s.Mechanism, s.Username, err)
	}
	if s.Mechanism == "" {
		return fmt.Errorf("kafka %s: connect (tls %v): %w", addr, sec.TLS != nil, err)
	}
	return fmt.Errorf("kafka %s: connect (tls %v, SASL %s as user %q): %w", addr, sec.TLS != nil, s.Mechanism, s.Username, err)
}
