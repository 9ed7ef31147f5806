package stream

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go/sasl/plain"
)

// TestNewSecurityReadsThroughItsReader: the files kafka.tls and kafka.sasl
// name are read with the reader given, a password file's trailing newline
// dropped, and a failed read names the key.
func TestNewSecurityReadsThroughItsReader(t *testing.T) {
	files := map[string]string{"pass": "secret\n"}
	read := func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
	}
	var k KafkaConfig
	k.SASL = SASLConfig{Mechanism: SASLPlain, Username: "u", PasswordFile: "pass"}
	sec, err := NewSecurity(k, read)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := sec.SASL.(plain.Mechanism); !ok || m.Password != "secret" || sec.TLS != nil {
		t.Errorf("security %+v, want plain with the file's password and no TLS", sec)
	}
	k.TLS = TLSConfig{Enabled: true, CAFile: "ca.pem"}
	if _, err := NewSecurity(k, read); err == nil || !strings.Contains(err.Error(), "kafka.tls.ca_file") {
		t.Errorf("missing CA file: error %v, want one naming kafka.tls.ca_file", err)
	}
	k.TLS = TLSConfig{Enabled: true, CertFile: "c.pem", KeyFile: "k.pem"}
	if _, err := NewSecurity(k, read); err == nil || !strings.Contains(err.Error(), "kafka.tls.cert_file") {
		t.Errorf("missing certificate: error %v, want one naming kafka.tls.cert_file", err)
	}
}
