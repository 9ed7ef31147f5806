package main

import (
	"strconv"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
)

// crashReport counts what check saw.
type crashReport struct {
	records, outputs, replays, lost, kept, clusters int
}

// verdictHeaders must be equal on every output of one input record.
var verdictHeaders = []string{stream.HeaderVerdict, stream.HeaderOf, stream.HeaderCluster, stream.HeaderSimilarity, stream.HeaderSketch}

// check reads the input, output and dead-letter topics and checks DESIGN.md's
// contracts 1 and 2 on them.
func (c *crashRun) check() crashReport {
	t := c.t
	in := readTopic(t, c.addr, "pages")
	if len(in) != len(c.pages)+len(c.bad) {
		t.Fatalf("input topic holds %d records, %d were produced", len(in), len(c.pages)+len(c.bad))
	}
	out := groupBy(readTopic(t, c.addr, "pages.out"), func(m kafka.Message) string { return string(m.Key) })
	dlq := groupBy(readTopic(t, c.addr, "pages.dlq"), func(m kafka.Message) string {
		h := headerMap(m)
		return h[stream.HeaderErrPartition] + "/" + h[stream.HeaderErrOffset]
	})
	r := crashReport{records: len(in)}
	first := make(map[string]map[string]string) // page id → headers of its first output
	for _, m := range in {
		key := string(m.Key)
		var got []kafka.Message
		if c.bad[key] {
			got = dlq[strconv.Itoa(m.Partition)+"/"+strconv.FormatInt(m.Offset, 10)]
			c.agree(key, got, stream.HeaderErrClass, stream.HeaderErrStage)
		} else {
			got = out[key]
			if !c.agree(key, got, verdictHeaders...) {
				c.describeOutputs(key, out)
			}
			if len(got) > 0 {
				first[key] = headerMap(got[0])
				c.pointsBack(key, first[key])
			}
		}
		if len(got) == 0 {
			r.lost++
			t.Errorf("record %s (partition %d, offset %d) has no outcome", key, m.Partition, m.Offset)
		}
		r.outputs += len(got)
		r.replays += max(len(got)-1, 0)
	}
	if r.replays == 0 {
		t.Errorf("no record was emitted twice: the kills did not exercise replay")
	}
	r.kept, r.clusters = c.clustersKept(first)
	return r
}

// agree fails, and reports false, if the outputs of one input record
// differ in any of keys.
func (c *crashRun) agree(id string, outs []kafka.Message, keys ...string) bool {
	if len(outs) < 2 {
		return true
	}
	want := headerMap(outs[0])
	same := true
	for _, o := range outs[1:] {
		got := headerMap(o)
		for _, k := range keys {
			if got[k] != want[k] {
				same = false
				c.t.Errorf("%s replayed with %s %q, first emitted with %q", id, k, got[k], want[k])
			}
		}
	}
	return same
}

// describeOutputs logs every output of page id and of the pages its
// outputs name as their original, in the order the output topic holds
// them: what a replay that disagreed was emitted beside.
func (c *crashRun) describeOutputs(id string, out map[string][]kafka.Message) {
	seen := map[string]bool{}
	var show func(id string)
	show = func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		for _, m := range out[id] {
			h := headerMap(m)
			c.t.Logf("  %s: pages.out %d/%d at %s: %s of %q, cluster %s, similarity %s", id, m.Partition, m.Offset,
				m.Time.Format("15:04:05.000"), h[stream.HeaderVerdict], h[stream.HeaderOf], h[stream.HeaderCluster], h[stream.HeaderSimilarity])
		}
		for _, m := range out[id] {
			if of := headerMap(m)[stream.HeaderOf]; of != "" {
				show(of)
			}
		}
	}
	show(id)
}

// pointsBack fails if a duplicate's dedup.of is itself or no page produced.
func (c *crashRun) pointsBack(id string, h map[string]string) {
	if h[stream.HeaderVerdict] == "unique" {
		return
	}
	if of := h[stream.HeaderOf]; of == id || c.pages[of].ID == "" {
		c.t.Errorf("%s is a %s of %q: not an earlier page", id, h[stream.HeaderVerdict], of)
	}
}

// clustersKept counts the generator's clusters (an original and its copies)
// with a member forwarded as unique, and fails for each without one.
func (c *crashRun) clustersKept(first map[string]map[string]string) (kept, clusters int) {
	unique := make(map[string]bool) // origin id → a member was unique
	for id, h := range first {
		if h[stream.HeaderVerdict] == "unique" {
			unique[c.pages[id].Origin] = true
		}
	}
	for _, id := range c.order {
		if c.pages[id].Kind != gen.Original {
			continue
		}
		clusters++
		if unique[id] {
			kept++
		} else {
			c.t.Errorf("cluster of %s has no member forwarded as unique", id)
		}
	}
	return kept, clusters
}

func groupBy(msgs []kafka.Message, key func(kafka.Message) string) map[string][]kafka.Message {
	g := make(map[string][]kafka.Message)
	for _, m := range msgs {
		g[key(m)] = append(g[key(m)], m)
	}
	return g
}
