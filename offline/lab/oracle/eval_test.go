package oracle

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/vocab"
)

var evalFlag = flag.Bool("eval", false, "print the recall/precision table of every method on both corpora")

// editedCopies returns one edited copy of every tenth document of at least 40
// words: round(rate·n) word edits (70% substitutions by a word of another
// document, 15% deletions, 15% insertions) with rates cycling through values that
// put the 5-shingle resemblance between about 0.98 and 0.6.
func editedCopies(r *rand.Rand, docs []doc) []doc {
	rates := []float64{0.002, 0.005, 0.01, 0.02, 0.03, 0.05}
	var out []doc
	for i := 0; i < len(docs); i += 10 {
		ws := strings.Split(string(docs[i].text), " ")
		if len(ws) < 40 {
			continue
		}
		rate := rates[len(out)%len(rates)]
		for range max(1, int(rate*float64(len(ws))+0.5)) {
			donor := strings.Split(string(docs[r.IntN(len(docs))].text), " ")
			w := donor[r.IntN(len(donor))]
			p := r.IntN(len(ws))
			switch x := r.Float64(); {
			case x < 0.7:
				ws[p] = w
			case x < 0.85 && len(ws) > 1:
				ws = slices.Delete(ws, p, p+1)
			default:
				ws = slices.Insert(ws, p, w)
			}
		}
		out = append(out, doc{id: docs[i].id + "/edited", text: []byte(strings.Join(ws, " "))})
	}
	return out
}

// found is what one method reports over a collection.
type found struct {
	pairs      map[[2]int32]bool
	candidates int
	sketchTime time.Duration
	sketchB    int
	keys       int
}

// findPairs runs a method as the pipeline would, without its caps: each document
// in turn looks its keys up in an in-memory index of the earlier documents,
// verifies every candidate with Compare and is then inserted.
func findPairs(m lsh.Method, docs []doc) found {
	f := found{pairs: map[[2]int32]bool{}}
	index := map[uint64][]int32{}
	sks := make([][]byte, len(docs))
	seen := make([]int32, len(docs))
	for i := range seen {
		seen[i] = -1
	}
	var sc lsh.Scratch
	var keys []uint64
	for i, d := range docs {
		start := time.Now()
		sks[i], keys = m.Sketch(&sc, d.text, nil, keys[:0])
		f.sketchTime += time.Since(start)
		f.sketchB += len(sks[i])
		f.keys += len(keys)
		for _, k := range keys {
			for _, j := range index[k] {
				if seen[j] == int32(i) {
					continue
				}
				seen[j] = int32(i)
				f.candidates++
				if e, err := m.Compare(sks[j], sks[i]); err == nil && e.Near {
					f.pairs[[2]int32{j, int32(i)}] = true
				}
			}
		}
		for _, k := range keys {
			index[k] = append(index[k], int32(i))
		}
	}
	return f
}

// score is one row of the table.
type score struct {
	truth, hit          int // oracle pairs with J >= t+0.05, and how many were found
	reported, good, bad int // reported pairs, with J >= t, with J < t-0.1
}

func scoreOf(f found, sets [][]uint64, truth map[[2]int32]float64, t float64) score {
	var s score
	for p, j := range truth {
		if j >= t+0.05 {
			s.truth++
			if f.pairs[p] {
				s.hit++
			}
		}
	}
	for p := range f.pairs {
		s.reported++
		j, ok := truth[p]
		if !ok {
			j = lsh.OverlapOf(sets[p[0]], sets[p[1]]).Resemblance()
		}
		if j >= t {
			s.good++
		}
		if j < t-0.1 {
			s.bad++
		}
	}
	return s
}

func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", 100*float64(a)/float64(b))
}

// TestEvaluation prints, per corpus, method and threshold, the recall of the
// oracle's pairs with resemblance ≥ t+0.05 and the precision of the reported
// pairs. Run it with
//
//	go test ./offline/lab/oracle -run TestEvaluation -eval -v -timeout 60m
func TestEvaluation(t *testing.T) {
	if !*evalFlag {
		t.Skip("run with -eval")
	}
	thresholds := []float64{0.5, 0.6, 0.7, 0.8, 0.9}
	var out strings.Builder
	fmt.Fprintf(&out, "| corpus | method | t | pairs J≥t+0.05 | recall %% | reported | precision J≥t %% | J<t−0.1 %% | candidates/doc | µs/doc sketch | sketch B/doc | keys/doc |\n")
	fmt.Fprintf(&out, "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, name := range []string{"reuters21578.tar.gz", "20news-bydate.tar.gz"} {
		docs := loadCorpus(t, name, 0)
		docs = append(docs, editedCopies(rand.New(rand.NewPCG(1, 1)), docs)...)
		sets := Sets(texts(docs), words5)
		pairs, st, err := Pairs(sets, Options{Threshold: 0.4})
		if err != nil {
			t.Fatal(err)
		}
		truth := map[[2]int32]float64{}
		for _, p := range pairs {
			if j := p.Resemblance(); j >= 0.4 {
				truth[[2]int32{int32(p.A), int32(p.B)}] = j
			}
		}
		t.Logf("%s: %d documents (with edited copies), oracle %+v, %d pairs with J >= 0.4", name, len(docs), st, len(truth))
		var vb vocab.Builder
		for _, d := range docs {
			vb.Add(d.text)
		}
		vocab := vb.Vocabulary()
		row := func(m lsh.Method, f found, th float64) {
			s := scoreOf(f, sets, truth, th)
			fmt.Fprintf(&out, "| %s | %s | %.1f | %d | %s | %d | %s | %s | %.1f | %.1f | %d | %.1f |\n",
				strings.TrimSuffix(name, ".tar.gz"), m.Version(), th, s.truth, pct(s.hit, s.truth), s.reported,
				pct(s.good, s.reported), pct(s.bad, s.reported), float64(f.candidates)/float64(len(docs)),
				float64(f.sketchTime.Microseconds())/float64(len(docs)), f.sketchB/len(docs), float64(f.keys)/float64(len(docs)))
		}
		for _, c := range []lsh.Config{
			{Method: lsh.MethodMinHash},
			{Method: lsh.MethodOPH},
			{Method: lsh.MethodBottomK},
			{Method: lsh.MethodModM},
			{Method: lsh.MethodModM, ModM: lsh.ModMParams{M: 8}},
		} {
			for _, th := range thresholds {
				c.Params.Threshold = th
				c.BottomK.Keys = 0 // chosen from the threshold
				m := newMethod(t, c, nil)
				row(m, findPairs(m, docs), th)
			}
		}
		for _, c := range []lsh.Config{
			{Method: lsh.MethodSuperShingle},
			{Method: lsh.MethodSimHash},
			{Method: lsh.MethodSimHash, SimHash: lsh.SimHashParams{Distance: 5, Blocks: 8}},
			{Method: lsh.MethodSimHash, SimHash: lsh.SimHashParams{IDF: true}},
			{Method: lsh.MethodIMatch},
		} {
			m := newMethod(t, c, vocab)
			f := findPairs(m, docs)
			for _, th := range thresholds {
				row(m, f, th)
			}
		}
	}
	t.Log("\n" + out.String())
}
