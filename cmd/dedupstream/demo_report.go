package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// seen is one record read back from an output topic.
type seen struct {
	topic, id, verdict, of string
	similarity             float64
	cluster                string
	errClass, errMsg       string
}

// readOutputs reads back everything the filter wrote, over the same broker.
func readOutputs(ctx context.Context, addr string, sec stream.Security, cfg Config) ([]seen, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var out []seen
	for _, topic := range []string{cfg.Kafka.Output, cfg.Kafka.Duplicates, cfg.Kafka.DeadLetter} {
		msgs, err := embedded.ReadAllWith(ctx, sec.Dialer("dedupstream-demo"), addr, topic)
		if err != nil {
			return out, fmt.Errorf("read back outputs: %w", err)
		}
		for _, m := range msgs {
			out = append(out, parseSeen(m))
		}
	}
	return out, nil
}

func parseSeen(m kafka.Message) seen {
	s := seen{topic: m.Topic, id: string(m.Key)}
	for _, h := range m.Headers {
		v := string(h.Value)
		switch h.Key {
		case stream.HeaderVerdict:
			s.verdict = v
		case stream.HeaderOf:
			s.of = v
		case stream.HeaderSimilarity:
			s.similarity, _ = strconv.ParseFloat(v, 64)
		case stream.HeaderCluster:
			s.cluster = v
		case stream.HeaderErrClass:
			s.errClass = v
		case stream.HeaderErrMessage:
			s.errMsg = v
		}
	}
	return s
}

func printSummary(w io.Writer, set demoSet, res demoResult, out []seen, examples int) {
	c := res.counts
	rate := float64(c.Records) / res.elapsed.Seconds()
	fmt.Fprintf(w, "%-22s %8d\n", "records in", c.Records)
	fmt.Fprintf(w, "%-22s %8d\n", "unique", c.Unique)
	fmt.Fprintf(w, "%-22s %8d\n", "near_duplicate", c.NearDuplicate)
	fmt.Fprintf(w, "%-22s %8d\n", "exact_duplicate", c.ExactDuplicate)
	fmt.Fprintf(w, "%-22s %8d\n", "dead-lettered", c.Invalid)
	fmt.Fprintf(w, "%-22s %8d  (%d to the duplicates topic, %d dropped)\n", "forwarded", c.Forwarded, c.ToDuplicates, c.Dropped)
	fmt.Fprintf(w, "%-22s %8.0f records/s  (%d records in %s, incl. group join)\n\n", "throughput", rate, c.Records, res.elapsed.Round(time.Millisecond))
	printTruth(w, set, out)
	printExamples(w, set, out, examples)
	printDeadLetters(w, out)
}

// printTruth compares verdicts with what the generator knows about each page.
// A copy is found when it ends in its origin's cluster; which of the two is
// flagged depends on which the filter saw first (they may sit on different
// partitions).
func printTruth(w io.Writer, set demoSet, out []seen) {
	type row struct{ n, dup, together int }
	cluster := make(map[string]string, len(out))
	for _, s := range out {
		cluster[s.id] = s.cluster
	}
	rows := make(map[gen.Kind]*row)
	for _, s := range out {
		p, ok := set.truth[s.id]
		if !ok || s.verdict == "" {
			continue
		}
		r := rows[p.Kind]
		if r == nil {
			r = &row{}
			rows[p.Kind] = r
		}
		r.n++
		if s.verdict != stream.Unique.String() {
			r.dup++
		}
		if s.cluster == cluster[p.Origin] {
			r.together++
		}
	}
	kinds := make([]gen.Kind, 0, len(rows))
	for k := range rows {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	fmt.Fprintln(w, "against the generator's ground truth (a copy is found when it shares its origin's cluster):")
	fmt.Fprintf(w, "  %-12s %7s %18s %24s\n", "page kind", "pages", "tagged duplicate", "in its origin's cluster")
	for _, k := range kinds {
		r := rows[k]
		together := fmt.Sprintf("%d (%5.1f%%)", r.together, pct(r.together, r.n))
		if k == gen.Original {
			together = "-"
		}
		fmt.Fprintf(w, "  %-12s %7d %9d (%5.1f%%) %24s\n", k, r.n, r.dup, pct(r.dup, r.n), together)
	}
	fmt.Fprintln(w, "  (an original is tagged when one of its copies, on another partition, was seen first)")
	fmt.Fprintln(w)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func printExamples(w io.Writer, set demoSet, out []seen, n int) {
	fmt.Fprintln(w, "example near-duplicates (id, kind → earliest match, estimated Jaccard):")
	shown := 0
	for _, s := range out {
		if s.verdict != stream.NearDuplicate.String() || shown == n {
			continue
		}
		shown++
		fmt.Fprintf(w, "  %-24s %-10s → %-24s %.3f  cluster %s\n", s.id, set.truth[s.id].Kind, s.of, s.similarity, s.cluster)
	}
	if shown == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	fmt.Fprintln(w)
}

func printDeadLetters(w io.Writer, out []seen) {
	fmt.Fprintln(w, "dead letters (key, __connect.errors.exception.class.name, message):")
	for _, s := range out {
		if s.errClass != "" {
			msg := s.errMsg
			if len(msg) > 70 {
				msg = msg[:70] + "…"
			}
			fmt.Fprintf(w, "  %-16s %-28s %s\n", s.id, s.errClass, msg)
		}
	}
}
