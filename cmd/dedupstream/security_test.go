package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"gopkg.in/yaml.v3"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// secureBroker starts an embedded broker with TLS and/or SASL users and
// returns a filter configuration for it (security keys left to the caller).
func secureBroker(t *testing.T, tlsCfg *tls.Config, users ...embedded.User) (string, Config) {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, TLS: tlsCfg, Users: users})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	var cfg Config
	cfg.Kafka.Brokers, cfg.Kafka.Group = []string{b.Addr()}, "secure-test"
	cfg.State.Dir = t.TempDir()
	cfg.Admin.Listen = ""
	return b.Addr(), cfg
}

// runSecure runs the filter on cfg over records produced with the same
// security, waits until all are forwarded, and returns everything it logged at
// debug level.
func runSecure(t *testing.T, addr string, cfg Config, n int) string {
	t.Helper()
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	sec, err := kafkaSecurity(cfg.Kafka)
	if err != nil {
		t.Fatal(err)
	}
	produceSecure(t, addr, sec, metricsInput(n, 0))
	log, logs := bufferLogger()
	a := runFilter(t, cfg, log)
	for deadline := time.Now().Add(time.Minute); a.Counts().Forwarded < int64(n); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			a.cancel()
			t.Fatalf("forwarded %d of %d; run: %v", a.Counts().Forwarded, n, <-a.done)
		}
	}
	a.stop(t)
	closeFilter(t, a.Filter)
	return logs.String()
}

func produceSecure(t *testing.T, addr string, sec stream.Security, msgs []kafka.Message) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: "pages", Balancer: &kafka.Hash{}, RequiredAcks: kafka.RequireAll,
		BatchTimeout: time.Millisecond, Transport: &kafka.Transport{TLS: sec.TLS, SASL: sec.SASL}}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
}

// bufferLogger logs JSON at debug level into a buffer the test can read.
func bufferLogger() (*zap.Logger, *syncBuffer) {
	buf := new(syncBuffer)
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(buf), zapcore.DebugLevel)), buf
}

// TestFilterOverTLS runs the filter against a broker that requires TLS and a
// client certificate signed by the test CA.
func TestFilterOverTLS(t *testing.T) {
	pki := newTestPKI(t)
	addr, cfg := secureBroker(t, pki.server)
	cfg.Kafka.TLS = stream.TLSConfig{Enabled: true, CAFile: pki.caFile, CertFile: pki.certFile, KeyFile: pki.keyFile}
	runSecure(t, addr, cfg, 40)
}

// TestFilterOverSASL runs the filter with each SASL mechanism, the password
// given each way it can be, and checks that it is never logged.
func TestFilterOverSASL(t *testing.T) {
	const user, pass = "filter", "pw-Vq81-never-logged"
	passFile := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(passFile, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := func(mechanism, kfakeMechanism, how string) {
		t.Run(mechanism+"/"+how, func(t *testing.T) {
			addr, cfg := secureBroker(t, nil, embedded.User{Mechanism: kfakeMechanism, Name: user, Password: pass})
			cfg.Kafka.SASL.Mechanism, cfg.Kafka.SASL.Username = mechanism, user
			switch how {
			case "env":
				if err := applyEnv(&cfg, []string{"DEDUPSTREAM_KAFKA_SASL_PASSWORD=" + pass}); err != nil {
					t.Fatal(err)
				}
			case "file":
				cfg.Kafka.SASL.PasswordFile = passFile
			default:
				cfg.Kafka.SASL.Password = pass
			}
			logs := runSecure(t, addr, cfg, 30)
			if !strings.Contains(logs, `"sasl":"`+mechanism+`"`) {
				t.Errorf("the start log does not name the mechanism %s", mechanism)
			}
			if strings.Contains(logs, pass) {
				t.Errorf("the password appears in the logs")
			}
		})
	}
	f(stream.SASLPlain, "PLAIN", "yaml")
	f(stream.SASLScramSHA256, "SCRAM-SHA-256", "env")
	f(stream.SASLScramSHA512, "SCRAM-SHA-512", "file")
}

// TestWrongCredentialsStopTheStart checks that a refused password or an
// unknown CA ends Run at once with an error that says why — and that the
// error does not quote the password.
func TestWrongCredentialsStopTheStart(t *testing.T) {
	f := func(name string, addr string, cfg Config, want string) {
		t.Run(name, func(t *testing.T) {
			cfg.EnsureDefaults()
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			// The start checks the brokers and topics: the error comes from
			// newFilter, or at the latest from run.
			a, err := newFilter(cfg, zap.NewNop())
			if err == nil {
				defer closeFilter(t, a)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				err = a.Run(ctx)
				if c := a.Counts().Records; c != 0 {
					t.Errorf("%d records processed", c)
				}
			}
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), addr) {
				t.Fatalf("run: %v, want an error naming %s and %q", err, addr, want)
			}
			t.Log(err)
			if strings.Contains(err.Error(), "wrong-pass") {
				t.Errorf("the error quotes the password: %v", err)
			}
		})
	}
	for _, m := range []struct{ ours, kfake string }{{"plain", "PLAIN"}, {"scram-sha-256", "SCRAM-SHA-256"}, {"scram-sha-512", "SCRAM-SHA-512"}} {
		addr, cfg := secureBroker(t, nil, embedded.User{Mechanism: m.kfake, Name: "alice", Password: "right-pass"})
		cfg.Kafka.SASL = stream.SASLConfig{Mechanism: m.ours, Username: "alice", Password: "wrong-pass"}
		f("password/"+m.ours, addr, cfg, `SASL `+m.ours+` as user "alice"`)
	}
	pki, other := newTestPKI(t), newTestPKI(t)
	addr, cfg := secureBroker(t, pki.server)
	cfg.Kafka.TLS = stream.TLSConfig{Enabled: true, CAFile: other.caFile, CertFile: pki.certFile, KeyFile: pki.keyFile}
	f("unknown-ca", addr, cfg, "certificate signed by unknown authority")
}

// TestSecretsNeverPrinted checks every way a configuration gets printed: the
// config command, YAML, JSON, fmt and zap.
func TestSecretsNeverPrinted(t *testing.T) {
	const pass = "pw-Zk27-must-not-print"
	t.Setenv("DEDUPSTREAM_KAFKA_SASL_PASSWORD", pass)
	t.Setenv("DEDUPSTREAM_KAFKA_SASL_MECHANISM", "scram-sha-512")
	t.Setenv("DEDUPSTREAM_KAFKA_SASL_USERNAME", "filter")
	var out, errOut bytes.Buffer
	if code := realMain([]string{"config", "--brokers", "b:9092"}, &out, &errOut); code != 0 {
		t.Fatalf("dedupstream config exited %d: %s", code, errOut.String())
	}
	fs, load := flagSet("config", &errOut)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Kafka.SASL.Password.Reveal() != pass {
		t.Fatalf("password from the environment not read: %q", cfg.Kafka.SASL.Password.Reveal())
	}
	y, _ := yaml.Marshal(cfg)
	j, _ := json.Marshal(cfg)
	log, logs := bufferLogger()
	log.Info("config", zap.Any("cfg", cfg), zap.Reflect("kafka", cfg.Kafka), zap.Stringer("password", cfg.Kafka.SASL.Password))
	printed := map[string]string{
		"dedupstream config": out.String(), "yaml": string(y), "json": string(j), "zap": logs.String(),
		"%v": fmt.Sprintf("%v", cfg), "%+v": fmt.Sprintf("%+v", cfg), "%#v": fmt.Sprintf("%#v", cfg),
		"%s": fmt.Sprintf("%s", cfg.Kafka.SASL.Password), "%q": fmt.Sprintf("%q", cfg.Kafka.SASL.Password),
	}
	for how, s := range printed {
		if strings.Contains(s, pass) {
			t.Errorf("%s prints the password", how)
		}
		if !strings.Contains(s, "[redacted]") {
			t.Errorf("%s does not show the password as [redacted]:\n%.300s", how, s)
		}
	}
}

func TestSecurityConfigNamesTheKey(t *testing.T) {
	f := func(yamlText, wantKey string) {
		t.Helper()
		var c Config
		err := decodeYAML([]byte(yamlText), &c)
		if err == nil {
			c.EnsureDefaults()
			err = c.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("%q: error %v, want one naming %s", yamlText, err, wantKey)
		}
	}
	f("kafka:\n  sasl:\n    mechanism: gssapi\n", "kafka.sasl.mechanism")
	f("kafka:\n  sasl:\n    mechanism: plain\n    password: x\n", "kafka.sasl.username")
	f("kafka:\n  sasl:\n    mechanism: plain\n    username: u\n", "kafka.sasl.password")
	f("kafka:\n  sasl:\n    mechanism: plain\n    username: u\n    password: x\n    password_file: f\n", "kafka.sasl.password")
	f("kafka:\n  sasl:\n    username: u\n", "kafka.sasl.mechanism")
	f("kafka:\n  tls:\n    ca_file: ca.pem\n", "kafka.tls.enabled")
	f("kafka:\n  tls:\n    enabled: true\n    cert_file: c.pem\n", "kafka.tls.cert_file")
	f("kafka:\n  tls:\n    enabled: true\n    verify: false\n", "verify")
}

// testPKI is a CA, a server certificate for 127.0.0.1 and a client
// certificate, as PEM files, plus the broker's TLS configuration requiring
// client certificates of this CA.
type testPKI struct {
	caFile, certFile, keyFile     string
	serverCertFile, serverKeyFile string // for "dedupstream broker --tls-cert"
	server                        *tls.Config
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, caCert, caDER := newCert(t, nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "dedupstream test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign,
	})
	srvKey, _, srvDER := newCert(t, caCert, caKey, &x509.Certificate{
		Subject: pkix.Name{CommonName: "broker"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	})
	cliKey, _, cliDER := newCert(t, caCert, caKey, &x509.Certificate{
		Subject: pkix.Name{CommonName: "dedupstream"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	})
	p := testPKI{caFile: filepath.Join(dir, "ca.pem"), certFile: filepath.Join(dir, "client.pem"), keyFile: filepath.Join(dir, "client-key.pem")}
	writePEM(t, p.caFile, "CERTIFICATE", caDER)
	writePEM(t, p.certFile, "CERTIFICATE", cliDER)
	writePEM(t, p.keyFile, "EC PRIVATE KEY", ecKeyDER(t, cliKey))
	p.serverCertFile, p.serverKeyFile = filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem")
	writePEM(t, p.serverCertFile, "CERTIFICATE", srvDER)
	writePEM(t, p.serverKeyFile, "EC PRIVATE KEY", ecKeyDER(t, srvKey))
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	p.server = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}},
		ClientAuth:   tls.RequireAndVerifyClientCert, ClientCAs: pool, MinVersion: tls.VersionTLS12,
	}
	return p
}

// newCert signs tmpl with parent (self-signed when parent is nil).
func newCert(t *testing.T, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, tmpl *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert, der
}

func ecKeyDER(t *testing.T, k *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
