package stream_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// TestStemEndToEnd: copies of an English and a Russian story that change
// only word forms and function words ("shares rose" → "the share rose",
// "книги" → "книгой") are near-duplicates of their originals through the
// broker, the pipeline and on-disk state when sketch.stopwords and
// sketch.stem are on, and unique pages when they are off.
func TestStemEndToEnd(t *testing.T) {
	pages := [][2]string{
		{"en", "The company reported that its shares rose after the market opened, and analysts said the board " +
			"was connecting new plants to the grid while the workers were running the old lines at full speed."},
		{"ru", "Компания сообщила, что ее акции выросли после открытия рынка, а аналитики сказали, что совет " +
			"директоров подключает новые заводы к сети, пока рабочие запускают старые линии на полную мощность."},
		{"en-copy", "Companies report that their share rose after the markets open, and an analyst said boards " +
			"were connected new plant to grids while a worker was runs old line at full speeds."},
		{"ru-copy", "Компании сообщили, что их акция выросла после открытий рынков, а аналитик сказал, что советы " +
			"директоров подключают новый завод к сетям, пока рабочий запускает старую линию на полной мощности."},
		{"other", "Heavy rain closed the mountain roads on Tuesday and the ferry to the islands did not sail."},
	}
	var msgs []kafka.Message
	for _, p := range pages {
		v, _ := json.Marshal(map[string]string{"id": p[0], "body": p[1]})
		msgs = append(msgs, kafka.Message{Key: []byte(p[0]), Value: v})
	}
	f := func(stopwords, stem string, want map[string]string) {
		t.Run(stopwords+"/"+stem, func(t *testing.T) {
			h := newHarness(t, 1)
			h.sketch.StopWords, h.sketch.Stem = stopwords, stem
			h.sketch.EnsureDefaults()
			h.process(msgs...)
			outs := h.readAll(topicOut)
			checkHeaders(t, h.method().Version(), outs)
			if v := h.method().Version(); (stem != "none") != strings.Contains(v, "-stem") {
				t.Errorf("sketch version %q with stem %s", v, stem)
			}
			got := map[string]string{}
			for _, o := range outs {
				got[o.key] = o.headers[stream.HeaderVerdict] + " " + o.headers[stream.HeaderOf]
			}
			for id, w := range want {
				if strings.TrimSpace(got[id]) != w {
					t.Errorf("%s: %q, want %q", id, got[id], w)
				}
			}
		})
	}
	f("en+ru", "auto", map[string]string{"en": "unique", "ru": "unique", "en-copy": "near_duplicate en",
		"ru-copy": "near_duplicate ru", "other": "unique"})
	f("none", "none", map[string]string{"en": "unique", "ru": "unique", "en-copy": "unique",
		"ru-copy": "unique", "other": "unique"})
}
