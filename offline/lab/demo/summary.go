package demo

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

// Seen is one record read back from an output topic.
type Seen struct {
	Topic, ID, Verdict, Of string
	Similarity             float64
	Cluster                string
	ErrClass, ErrMsg       string
}

// ReadOutputs reads back everything a filter wrote to topics (its output,
// duplicates and dead-letter topics) on the brokers at addr, over
// connections made by d, within a minute.
func ReadOutputs(ctx context.Context, d *kafka.Dialer, addr string, topics ...string) ([]Seen, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var out []Seen
	for _, topic := range topics {
		msgs, err := embedded.ReadAllWith(ctx, d, addr, topic)
		if err != nil {
			return out, fmt.Errorf("read back outputs: %w", err)
		}
		for _, m := range msgs {
			out = append(out, parseSeen(m))
		}
	}
	return out, nil
}

func parseSeen(m kafka.Message) Seen {
	s := Seen{Topic: m.Topic, ID: string(m.Key)}
	for _, h := range m.Headers {
		v := string(h.Value)
		switch h.Key {
		case stream.HeaderVerdict:
			s.Verdict = v
		case stream.HeaderOf:
			s.Of = v
		case stream.HeaderSimilarity:
			s.Similarity, _ = strconv.ParseFloat(v, 64)
		case stream.HeaderCluster:
			s.Cluster = v
		case stream.HeaderErrClass:
			s.ErrClass = v
		case stream.HeaderErrMessage:
			s.ErrMsg = v
		}
	}
	return s
}

// WriteSummary writes what the filter did — its counts c over elapsed —
// then its verdicts out against set's ground truth, up to examples
// near-duplicates found, and the dead letters.
func WriteSummary(w io.Writer, set Set, c stream.Counts, elapsed time.Duration, out []Seen, examples int) {
	rate := float64(c.Records) / elapsed.Seconds()
	fmt.Fprintf(w, "%-22s %8d\n", "records in", c.Records)
	fmt.Fprintf(w, "%-22s %8d\n", "unique", c.Unique)
	fmt.Fprintf(w, "%-22s %8d\n", "near_duplicate", c.NearDuplicate)
	fmt.Fprintf(w, "%-22s %8d\n", "exact_duplicate", c.ExactDuplicate)
	fmt.Fprintf(w, "%-22s %8d\n", "dead-lettered", c.Invalid)
	fmt.Fprintf(w, "%-22s %8d  (%d to the duplicates topic, %d dropped)\n", "forwarded", c.Forwarded, c.ToDuplicates, c.Dropped)
	fmt.Fprintf(w, "%-22s %8.0f records/s  (%d records in %s, incl. group join)\n\n", "throughput", rate, c.Records, elapsed.Round(time.Millisecond))
	printTruth(w, set, out)
	printExamples(w, set, out, examples)
	printDeadLetters(w, out)
}

// printTruth compares verdicts with what the generator knows about each page.
// A copy is found when it ends in its origin's cluster; which of the two is
// flagged depends on which the filter saw first (they may sit on different
// partitions).
func printTruth(w io.Writer, set Set, out []Seen) {
	type row struct{ n, dup, together int }
	cluster := make(map[string]string, len(out))
	for _, s := range out {
		cluster[s.ID] = s.Cluster
	}
	rows := make(map[gen.Kind]*row)
	for _, s := range out {
		p, ok := set.Truth[s.ID]
		if !ok || s.Verdict == "" {
			continue
		}
		r := rows[p.Kind]
		if r == nil {
			r = &row{}
			rows[p.Kind] = r
		}
		r.n++
		if s.Verdict != stream.Unique.String() {
			r.dup++
		}
		if s.Cluster == cluster[p.Origin] {
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

func printExamples(w io.Writer, set Set, out []Seen, n int) {
	fmt.Fprintln(w, "example near-duplicates (id, kind → earliest match, estimated Jaccard):")
	shown := 0
	for _, s := range out {
		if s.Verdict != stream.NearDuplicate.String() || shown == n {
			continue
		}
		shown++
		fmt.Fprintf(w, "  %-24s %-10s → %-24s %.3f  cluster %s\n", s.ID, set.Truth[s.ID].Kind, s.Of, s.Similarity, s.Cluster)
	}
	if shown == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	fmt.Fprintln(w)
}

func printDeadLetters(w io.Writer, out []Seen) {
	fmt.Fprintln(w, "dead letters (key, __connect.errors.exception.class.name, message):")
	for _, s := range out {
		if s.ErrClass != "" {
			msg := s.ErrMsg
			if len(msg) > 70 {
				msg = msg[:70] + "…"
			}
			fmt.Fprintf(w, "  %-16s %-28s %s\n", s.ID, s.ErrClass, msg)
		}
	}
}
