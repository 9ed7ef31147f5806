package main

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dedupstream/dedupstream/stream/confkey"
)

// referenceRow is one key of docs/configuration.md: | `key` | default | `ENV` | what |.
type referenceRow struct {
	key, def, env, what string
}

var referenceRowRE = regexp.MustCompile("^\\| `([a-z_.]+)` \\| (.*?) \\| (.*?) \\| (.*) \\|$")

func readReference(t *testing.T) []referenceRow {
	t.Helper()
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []referenceRow
	for _, line := range strings.Split(string(b), "\n") {
		if m := referenceRowRE.FindStringSubmatch(line); m != nil {
			rows = append(rows, referenceRow{key: m[1], def: m[2], env: m[3], what: m[4]})
		}
	}
	return rows
}

// yamlLeafPaths lists the keys a YAML mapping sets, by dotted path; a
// sequence or a scalar is a leaf.
func yamlLeafPaths(n *yaml.Node, prefix string, out map[string]bool) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			yamlLeafPaths(c, prefix, out)
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		out[prefix] = true
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		yamlLeafPaths(n.Content[i+1], strings.TrimPrefix(prefix+"."+n.Content[i].Value, "."), out)
	}
}

// literalRE is a default cell holding one literal: `value`.
var literalRE = regexp.MustCompile("^`([^`]*)`$")

// TestConfigReferenceMatches keeps docs/configuration.md, config.example.yaml
// and the Config struct (with the package configs it embeds) in step: the
// reference lists every key of the struct exactly once and no other, with the
// environment variable that sets it and the default config.example.yaml
// shows; the example shows every key but those the reference calls ignored.
// (TestExampleConfigIsTheDefaults checks the example against the built-in
// defaults.)
func TestConfigReferenceMatches(t *testing.T) {
	example, err := loadConfig("../../config.example.yaml", nil) // as written: not defaulted
	if err != nil {
		t.Fatal(err)
	}
	fields := make(map[string]reflect.Value)
	var order []string
	_ = confkey.Walk(&example, func(path string, f reflect.Value) error {
		fields[path] = f
		order = append(order, path)
		return nil
	})

	rows := readReference(t)
	documented := make(map[string]referenceRow)
	for _, r := range rows {
		if _, dup := documented[r.key]; dup {
			t.Errorf("docs/configuration.md lists %s twice", r.key)
		}
		documented[r.key] = r
		f, ok := fields[r.key]
		if !ok {
			t.Errorf("docs/configuration.md lists %s, which is not a configuration key", r.key)
			continue
		}
		if env := strings.Fields(strings.Trim(r.env, "`"))[0]; strings.Trim(env, "`") != envName(r.key) {
			t.Errorf("docs/configuration.md: %s's environment variable is %s, want %s", r.key, r.env, envName(r.key))
		}
		m := literalRE.FindStringSubmatch(r.def)
		if m == nil {
			// Only a list of records has no one-line default.
			if f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Struct {
				t.Errorf("docs/configuration.md: %s's default %q is not one `literal`", r.key, r.def)
			}
			continue
		}
		text := m[1]
		if text == `""` {
			text = ""
		}
		want := reflect.New(f.Type()).Elem()
		if text != "" || f.Kind() == reflect.Slice {
			if err := confkey.SetText(want, text); err != nil {
				t.Errorf("docs/configuration.md: %s's default %q: %v", r.key, text, err)
				continue
			}
		}
		if !reflect.DeepEqual(want.Interface(), f.Interface()) && !(f.Kind() == reflect.Slice && f.Len() == 0 && want.Len() == 0) {
			t.Errorf("docs/configuration.md gives %s the default %q; config.example.yaml has %v", r.key, text, f.Interface())
		}
	}
	for _, k := range order {
		if _, ok := documented[k]; !ok {
			t.Errorf("docs/configuration.md does not list %s", k)
		}
	}

	b, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	shown := make(map[string]bool)
	yamlLeafPaths(&root, "", shown)
	for _, k := range order {
		if !shown[k] && !strings.HasPrefix(documented[k].what, "ignored") {
			t.Errorf("config.example.yaml does not set %s (only keys docs/configuration.md calls ignored may be left out)", k)
		}
	}
}

// TestCommandsDocumented keeps docs/commands.md in step with -h: every flag
// of every command and subcommand is in it.
func TestCommandsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	flagRE := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	for _, args := range [][]string{
		{"run"}, {"check"}, {"demo"}, {"bench"}, {"gen"}, {"eval"}, {"compare"}, {"broker"}, {"config"},
		{"state", "stats"}, {"state", "collect"},
		{"offline", "cluster"}, {"offline", "report"}, {"offline", "pairs"}, {"offline", "fim"},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain(append(args, "-h"), &stdout, &stderr); code != 0 {
			t.Fatalf("%s -h: exit status %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		flags := flagRE.FindAllStringSubmatch(stderr.String(), -1)
		if len(flags) == 0 {
			t.Errorf("%s -h lists no flags:\n%s", strings.Join(args, " "), stderr.String())
		}
		for _, m := range flags {
			if !strings.Contains(doc, "`--"+m[1]+"`") {
				t.Errorf("docs/commands.md does not document %s --%s", strings.Join(args, " "), m[1])
			}
		}
		if !strings.Contains(doc, "## "+args[0]) {
			t.Errorf("docs/commands.md has no section for %s", args[0])
		}
	}
}
