package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// TestContainmentOff runs the filter, configured from a file and the
// environment as "dedupstream run" is, with method full over the embedded
// broker: a short page that is a passage of a longer page stored before it
// is "contained" in it with sketch.containment left out (the default 0.9),
// and unique with sketch.containment: 0, in the file or from
// DEDUPSTREAM_SKETCH_CONTAINMENT.
func TestContainmentOff(t *testing.T) {
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("w%d", (i*7919)%1009))
	}
	msgs := []kafka.Message{bodyRecord(t, "long", strings.Join(words, " ")), bodyRecord(t, "short", strings.Join(words[150:250], " "))}
	f := func(name, sketch string, env []string, want string) {
		t.Run(name, func(t *testing.T) {
			b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			yaml := fmt.Sprintf("kafka:\n  brokers: [%s]\n  group: contained\nsketch:\n  method: full\n%sstate:\n  dir: %s\nadmin:\n  listen: 127.0.0.1:0\n",
				b.Addr(), sketch, filepath.Join(t.TempDir(), "state"))
			cfg := loadValid(t, yaml, env, nil)
			if err := produce(context.Background(), b.Addr(), "pages", msgs); err != nil {
				t.Fatal(err)
			}
			a, stop := startFilter(t, cfg)
			waitRecords(t, a, len(msgs))
			stop()
			closeFilter(t, a)
			got := make(map[string]string)
			for _, m := range readTopic(t, b.Addr(), "pages.out") {
				h := headerMap(m)
				got[string(m.Key)] = h[stream.HeaderVerdict] + " " + h[stream.HeaderOf]
			}
			if got["long"] != "unique " || got["short"] != want {
				t.Errorf("verdicts long %q, short %q; want \"unique \" and %q", got["long"], got["short"], want)
			}
		})
	}
	f("default", "", nil, "contained long")
	f("file", "  containment: 0\n", nil, "unique ")
	f("env", "", []string{"DEDUPSTREAM_SKETCH_CONTAINMENT=0"}, "unique ")
}

// bodyRecord is the JSON record of a text page, keyed by its id.
func bodyRecord(t *testing.T, id, body string) kafka.Message {
	t.Helper()
	v, err := json.Marshal(map[string]string{"id": id, "body": body})
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Message{Key: []byte(id), Value: v}
}
