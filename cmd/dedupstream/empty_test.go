package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/stream/admin"
)

// TestEmptyAdminDisables: admin.listen given as "" — in the file, as
// DEDUPSTREAM_ADMIN_LISTEN= or as an empty --admin — disables the admin server,
// while leaving it out keeps the default; the filter built from such a
// configuration opens no listener.
func TestEmptyAdminDisables(t *testing.T) {
	f := func(name, file, env string, args []string, want string) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			args = append([]string{"--state", filepath.Join(dir, "state")}, args...)
			if file != "" {
				path := filepath.Join(dir, "c.yaml")
				if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", path)
			}
			if k, v, ok := strings.Cut(env, "="); ok {
				t.Setenv(k, v)
			}
			fs, load := flagSet("run", os.Stderr)
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			cfg, err := load()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Admin.Listen != want {
				t.Fatalf("admin.listen = %q, want %q", cfg.Admin.Listen, want)
			}
			if want != "" {
				return
			}
			a, err := newFilter(cfg, zaptest.NewLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			defer closeFilter(t, a)
			if a.AdminAddr() != nil {
				t.Errorf("the filter listens on %v with admin.listen empty", a.AdminAddr())
			}
		})
	}
	f("default", "", "", nil, admin.DefaultListen)
	f("file-without-key", "admin:\n  state_interval: 1m\n", "", nil, admin.DefaultListen)
	f("flag", "", "", []string{"--admin", ""}, "")
	f("flag=", "", "", []string{"--admin="}, "")
	f("env", "", "DEDUPSTREAM_ADMIN_LISTEN=", nil, "")
	f("file", "admin:\n  listen: \"\"\n", "", nil, "")
	f("flag-over-env", "", "DEDUPSTREAM_ADMIN_LISTEN=127.0.0.1:9999", []string{"--admin", ""}, "")
	f("flag-over-file", "admin:\n  listen: 127.0.0.1:9999\n", "", []string{"--admin", ""}, "")
	f("env-sets", "", "DEDUPSTREAM_ADMIN_LISTEN=127.0.0.1:0", nil, "127.0.0.1:0")
}

// TestConfigCommandPrintsAdminOff: dedupstream config --admin ” prints the
// admin server off, and what it prints reads back as off.
func TestConfigCommandPrintsAdminOff(t *testing.T) {
	var out, errb bytes.Buffer
	if err := cmdConfig(context.Background(), []string{"--admin", ""}, &out, &errb); err != nil {
		t.Fatalf("config --admin '': %v %s", err, errb.String())
	}
	if !strings.Contains(out.String(), "listen: \"\"\n") {
		t.Fatalf("config --admin '' printed:\n%s", out.String())
	}
	path := filepath.Join(t.TempDir(), "printed.yaml")
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.EnsureDefaults(); c.Admin.Listen != "" {
		t.Errorf("the printed configuration reads back with admin.listen %q", c.Admin.Listen)
	}
}

// TestEmptyListMeansNone: a list key given as "" in the environment is an
// empty list, which clean.drop_tags reads as "drop nothing" and
// decode.charset.headers as "no header names a charset", as the file's []
// does; leaving it out keeps the default list.
func TestEmptyListMeansNone(t *testing.T) {
	f := func(file string, environ []string, wantTags int) {
		t.Helper()
		path := ""
		if file != "" {
			path = filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c, err := loadConfig(path, environ)
		if err != nil {
			t.Fatal(err)
		}
		c.EnsureDefaults()
		if len(c.Clean.DropTags) != wantTags {
			t.Errorf("file %q env %q: drop_tags %q, want %d tags", file, environ, c.Clean.DropTags, wantTags)
		}
	}
	all := len(defaults().Clean.DropTags)
	f("", nil, all)
	f("", []string{"DEDUPSTREAM_CLEAN_DROP_TAGS="}, 0)
	f("clean:\n  drop_tags: []\n", nil, 0)
	f("", []string{"DEDUPSTREAM_CLEAN_DROP_TAGS=nav, footer"}, 2)

	c, err := loadConfig("", []string{"DEDUPSTREAM_DECODE_CHARSET_HEADERS=", "DEDUPSTREAM_DECODE_CHARSET_FIELDS=enc"})
	if err != nil {
		t.Fatal(err)
	}
	if c.EnsureDefaults(); len(c.Decode.Charset.Headers) != 0 || !reflect.DeepEqual(c.Decode.Charset.Fields, []string{"enc"}) {
		t.Errorf("decode.charset from the environment: %+v", c.Decode.Charset)
	}
}

// TestDecodeDetect: decode.detect is on unless the file or the environment
// turns it off.
func TestDecodeDetect(t *testing.T) {
	f := func(file string, environ []string, want bool) {
		t.Helper()
		path := ""
		if file != "" {
			path = filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c, err := loadConfig(path, environ)
		if err != nil {
			t.Fatal(err)
		}
		if c.EnsureDefaults(); c.Decode.Detect == nil || *c.Decode.Detect != want {
			t.Errorf("file %q env %q: decode.detect %v, want %v", file, environ, c.Decode.Detect, want)
		}
	}
	f("", nil, true)
	f("decode:\n  detect: false\n", nil, false)
	f("", []string{"DEDUPSTREAM_DECODE_DETECT=false"}, false)
	f("decode:\n  detect: false\n", []string{"DEDUPSTREAM_DECODE_DETECT=true"}, true)
	if _, err := loadConfig("", []string{"DEDUPSTREAM_DECODE_DETECT=maybe"}); err == nil || !strings.Contains(err.Error(), "decode.detect") {
		t.Errorf("DEDUPSTREAM_DECODE_DETECT=maybe: %v, want an error naming decode.detect", err)
	}
}
