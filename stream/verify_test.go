package stream_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/stream"
)

// TestVerifyEndToEnd runs a hand-written story and two edited copies through
// the broker, the pipeline and on-disk state with minhash at 0.8, without and
// with a full verifier at 0.9. The heavier copy (exact resemblance in
// [0.8, 0.9)) is a near-duplicate by minhash alone and unique once verified;
// the lighter one (≥ 0.9) is a near-duplicate either way, reported with its
// exact resemblance when full verifies it. The contained verdict is on, and
// the heavy copy's exact containment (0.94) reaches it, but minhash estimates
// no containment and verification never adds a verdict.
func TestVerifyEndToEnd(t *testing.T) {
	story, err := os.ReadFile("../lsh/testdata/verify_story.txt")
	if err != nil {
		t.Fatal(err)
	}
	story = bytes.TrimSpace(story)
	light, heavy := replaceWords(story, 1), replaceWords(story, 3)
	jl, jh := exactJaccard(story, light), exactJaccard(story, heavy)
	if !(jl >= 0.9 && jh >= 0.8 && jh < 0.9) {
		t.Fatalf("exact resemblance %.3f and %.3f, want >= 0.9 and in [0.8, 0.9)", jl, jh)
	}
	msgs := []kafka.Message{page("story", story), page("heavy", heavy), page("light", light)}
	run := func(verify lsh.VerifyConfig) map[string]map[string]string {
		h := newHarness(t, 1)
		h.containment = 0.9 // as run sets it: the heavy copy's exact containment is 0.94
		h.sketch.Verify = verify
		h.sketch.EnsureDefaults()
		h.process(msgs...)
		outs := h.readAll(topicOut)
		checkHeaders(t, h.method().Version(), outs)
		got := make(map[string]map[string]string, len(outs))
		for _, o := range outs {
			got[o.key] = o.headers
		}
		return got
	}
	want := func(got map[string]map[string]string, id, verdict, of string) {
		t.Helper()
		if h := got[id]; h[stream.HeaderVerdict] != verdict || h[stream.HeaderOf] != of {
			t.Errorf("%s: %s of %q, want %s of %q (headers %v)", id, h[stream.HeaderVerdict], h[stream.HeaderOf], verdict, of, h)
		}
	}

	plain := run(lsh.VerifyConfig{})
	want(plain, "story", "unique", "")
	want(plain, "heavy", "near_duplicate", "story")
	want(plain, "light", "near_duplicate", "story")

	verified := run(lsh.VerifyConfig{Method: lsh.MethodFull, Threshold: 0.9})
	want(verified, "story", "unique", "")
	want(verified, "heavy", "unique", "")
	want(verified, "light", "near_duplicate", "story")
	if s := verified["light"][stream.HeaderSimilarity]; s != strconv.FormatFloat(jl, 'f', 3, 64) {
		t.Errorf("light: dedup.similarity %s, want the exact resemblance %.3f", s, jl)
	}
	if v := verified["story"][stream.HeaderSketch]; !strings.Contains(v, "+verify-full") {
		t.Errorf("dedup.sketch %q does not name the verifier", v)
	}
}

// replaceWords replaces n words, 40 apart, with words of their own.
func replaceWords(text []byte, n int) []byte {
	words := bytes.Fields(text)
	for i := range n {
		words[i*40+20] = []byte("edited" + string(rune('a'+i)))
	}
	return bytes.Join(words, []byte(" "))
}

// exactJaccard is the exact resemblance of the default 5-word shingle sets.
func exactJaccard(a, b []byte) float64 {
	var c lsh.Config
	c.EnsureDefaults()
	sh := c.Shingling()
	return lsh.OverlapOf(lsh.SortedSet(sh.Append(nil, a)), lsh.SortedSet(sh.Append(nil, b))).Resemblance()
}

func page(id string, text []byte) kafka.Message {
	v, _ := json.Marshal(map[string]string{"id": id, "html": "<html><body><p>" + string(text) + "</p></body></html>"})
	return kafka.Message{Key: []byte(id), Value: v}
}
