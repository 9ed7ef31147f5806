package main

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const dashboardFile = "../../docs/deploy/grafana/dedupstream.json"

// dashboard is the part of a Grafana dashboard the test reads.
type dashboard struct {
	UID    string `json:"uid"`
	Panels []struct {
		Title      string `json:"title"`
		Type       string `json:"type"`
		Datasource struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

var metricName = regexp.MustCompile(`\b(?:dedupstream|process|go)_[a-z0-9_]+\b`)

// TestDashboardQueriesExportedMetrics parses the Grafana dashboard and checks
// that every metric it queries is exported by a running filter, that it shows
// what operators asked for, and that it uses the provisioned data source.
func TestDashboardQueriesExportedMetrics(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	exported := exportedMetrics(t)
	queried := make(map[string]bool)
	for _, p := range d.Panels {
		if p.Datasource.UID != provisionedDatasourceUID(t) {
			t.Errorf("panel %q uses data source %q, not the provisioned one", p.Title, p.Datasource.UID)
		}
		for _, tg := range p.Targets {
			names := metricName.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q queries no metric: %s", p.Title, tg.Expr)
			}
			for _, n := range names {
				queried[n] = true
				if !exported[n] {
					t.Errorf("panel %q queries %s, which the filter does not export", p.Title, n)
				}
			}
		}
	}
	for _, want := range []string{"dedupstream_records_total", "dedupstream_dead_letter_total", "dedupstream_stage_duration_seconds_bucket",
		"dedupstream_consumer_lag_records", "dedupstream_state_bytes", "dedupstream_candidate_similarity_ratio_bucket"} {
		if !queried[want] {
			t.Errorf("the dashboard does not show %s", want)
		}
	}
}

// exportedMetrics runs the filter over good and bad records and returns the
// names of every sample on its /metrics.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	addr, cfg := testBroker(t, 2, "dashboard-test")
	if err := produce(context.Background(), addr, "pages", metricsInput(100, 3)); err != nil {
		t.Fatal(err)
	}
	a, stop := startFilter(t, cfg)
	base := "http://" + a.AdminAddr().String()
	waitForMetric(t, base, "dedupstream_records_total", 103)
	names := make(map[string]bool)
	for series := range scrape(t, base) {
		name, _, _ := strings.Cut(series, "{")
		names[name] = true
	}
	stop()
	closeFilter(t, a)
	return names
}

// provisionedDatasourceUID reads the uid of the data source Grafana is
// provisioned with, and checks that docker-compose.yml mounts the dashboard
// where the dashboard provider looks for it.
func provisionedDatasourceUID(t *testing.T) string {
	t.Helper()
	var ds struct {
		Datasources []struct{ UID, Type string } `yaml:"datasources"`
	}
	readYAML(t, "../../docs/deploy/grafana/provisioning/datasources/prometheus.yml", &ds)
	if len(ds.Datasources) != 1 || ds.Datasources[0].Type != "prometheus" {
		t.Fatalf("want one prometheus data source, got %+v", ds.Datasources)
	}
	var prov struct {
		Providers []struct {
			Options struct{ Path string } `yaml:"options"`
		} `yaml:"providers"`
	}
	readYAML(t, "../../docs/deploy/grafana/provisioning/dashboards/dedupstream.yml", &prov)
	var compose struct {
		Services map[string]struct {
			Volumes []string `yaml:"volumes"`
		} `yaml:"services"`
	}
	readYAML(t, "../../docker-compose.yml", &compose)
	mounts := strings.Join(compose.Services["grafana"].Volumes, "\n")
	wantDash := "./docs/deploy/grafana/dedupstream.json:" + path.Join(prov.Providers[0].Options.Path, "dedupstream.json")
	if !strings.Contains(mounts, wantDash) || !strings.Contains(mounts, "./docs/deploy/grafana/provisioning:/etc/grafana/provisioning") {
		t.Fatalf("docker-compose.yml grafana volumes %q do not mount the provisioning and %s", mounts, wantDash)
	}
	return ds.Datasources[0].UID
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
