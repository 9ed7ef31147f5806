package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/prepare"
)

// Source makes the bench's documents: the corpus's documents in order,
// then word-shuffled variants of them (same length and vocabulary, new
// shingles), with a share of near-copies of recent documents mixed in.
type Source struct {
	Name     string // the corpus
	bodies   []string
	copyRate float64
}

// Bodies calls each with every document body of a corpus, in order, and
// returns the first error each or the reading returns.
type Bodies func(each func(body string) error) error

// NewSource reads the bodies of the corpus name into a Source that mixes in
// near-copies at copyRate; bodies of fewer than 10 words are left out.
func NewSource(name string, bodies Bodies, copyRate float64) (*Source, error) {
	s := &Source{Name: name, copyRate: copyRate}
	err := bodies(func(body string) error {
		if len(strings.Fields(body)) >= 10 {
			s.bodies = append(s.bodies, body)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bench corpus: %w", err)
	}
	if len(s.bodies) == 0 {
		return nil, fmt.Errorf("bench corpus %s has no documents", name)
	}
	return s, nil
}

// Doc returns document i; the same i always gives the same text.
func (s *Source) Doc(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	if i > 0 && r.Float64() < s.copyRate {
		j := i - 1 - r.IntN(min(i, 1000))
		return editWords(s.Doc(j), r, 0.01)
	}
	body := s.bodies[i%len(s.bodies)]
	if i < len(s.bodies) {
		return body
	}
	words := strings.Fields(body)
	r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
	return strings.Join(words, " ")
}

// editWords replaces a fraction rate of the words of text.
func editWords(text string, r *rand.Rand, rate float64) string {
	words := strings.Fields(text)
	for k := range words {
		if r.Float64() < rate {
			words[k] = "edit" + strconv.Itoa(r.IntN(1e6))
		}
	}
	return strings.Join(words, " ")
}

// Produce writes documents 0..n-1 of s to topic as JSON records (Message)
// and returns their bytes.
func Produce(ctx context.Context, c Cluster, topic string, s *Source, n int) (int64, error) {
	w := c.writer(topic)
	defer w.Close()
	var total int64
	msgs := make([]kafka.Message, 0, 5000)
	for i := 0; i < n; i++ {
		m := Message("d"+strconv.Itoa(i), s.Doc(i))
		total += int64(len(m.Value))
		msgs = append(msgs, m)
		if len(msgs) == cap(msgs) || i == n-1 {
			if err := w.WriteMessages(ctx, msgs...); err != nil {
				return total, fmt.Errorf("produce bench documents: %w", err)
			}
			msgs = msgs[:0]
		}
	}
	return total, nil
}

// Message is a bench document as the JSON record the filter reads, keyed by
// its id.
func Message(id, body string) kafka.Message {
	return kafka.Message{Key: []byte(id), Value: prepare.Input{ID: id, Body: body}.JSON()}
}
