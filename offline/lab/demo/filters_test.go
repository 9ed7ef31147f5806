package demo

import (
	"os"
	"strings"
	"testing"
)

func TestConfig(t *testing.T) {
	cfg, cleanup, err := Config(FilterSettings{Brokers: []string{"127.0.0.1:9"}, Threshold: 0.7, Mode: "drop", Instances: 3, Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.State.Dir); err != nil {
		t.Errorf("temporary state directory: %v", err)
	}
	if cfg.Kafka.Input != Input || cfg.Kafka.Group != Group || cfg.Mode.String() != "drop" || cfg.Index.Shards != 4 || cfg.Admin.Listen != "" {
		t.Errorf("config %+v", cfg)
	}
	cleanup()
	if _, err := os.Stat(cfg.State.Dir); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s: %v", cfg.State.Dir, err)
	}
	_, cleanup, err = Config(FilterSettings{Brokers: []string{"127.0.0.1:9"}, Threshold: 0.7, Mode: "shred", StateDir: t.TempDir(), Instances: 1})
	cleanup()
	if err == nil || !strings.HasPrefix(err.Error(), "mode: ") {
		t.Errorf("mode shred: %v, want an error naming mode", err)
	}
}
