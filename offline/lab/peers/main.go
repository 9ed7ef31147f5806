package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"time"

	minhashlsh "github.com/ekzhu/minhash-lsh"
	"github.com/mfonda/simhash"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// result is one system's run over the documents.
type result struct {
	name, params string
	ours         bool // a dedupstream row: the base of the ratios of the rows below it
	elapsed      time.Duration
	pairs        []quality.Pair // verified pairs, sorted
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	path := fs.String("corpus", "../shared/corpora/20news-bydate.tar.gz", "corpus read by offline/lab/corpus")
	docsN := fs.Int("docs", 20000, "documents to read (0: all)")
	threshold := fs.Float64("threshold", 0.8, "Jaccard resemblance threshold")
	if err := fs.Parse(args); err != nil {
		return err
	}
	docs, err := eval.CleanCorpus(*path, *docsN)
	if err != nil {
		return err
	}
	truthOf, err := eval.Natural(docs, *threshold)
	if err != nil {
		return err
	}
	truth, err := truthOf(*threshold)
	if err != nil {
		return err
	}
	ours, err := dedupstream(docs, lsh.MethodMinHash, *threshold)
	if err != nil {
		return err
	}
	peer := ekzhu(docs, *threshold)
	oursSim, err := dedupstream(docs, lsh.MethodSimHash, *threshold)
	if err != nil {
		return err
	}
	peerSim, err := mfonda(docs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d documents of %s, threshold %.2f, %d true pairs (exact oracle, word 5-shingles), GOMAXPROCS %d\n\n",
		len(docs), *path, *threshold, len(truth.Pairs), runtime.GOMAXPROCS(0))
	return table(stdout, len(docs), truth, ours, peer, oursSim, peerSim)
}

// dedupstream is our in-process path: one of lsh's methods with its defaults and the
// in-memory index of eval.Verify, every candidate verified. minhash: 128 permutations,
// bands and rows chosen from the threshold. simhash: 64-bit fingerprints of the set of
// word 5-shingles (tf "set"), near at Hamming distance ≤ 6, found through 28 permuted
// tables (8 blocks, 16-bit keys); the threshold does not enter it.
func dedupstream(docs []eval.Doc, method string, t float64) (result, error) {
	c := lsh.Config{Method: method}
	c.Params.NumPerm, c.Params.Threshold = 128, t
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, nil)
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	edges, _, err := eval.Verify(m, docs)
	if err != nil {
		return result{}, err
	}
	r := result{name: "dedupstream (lsh " + method + ", in-memory index)", params: m.Version(), ours: true,
		elapsed: time.Since(start)}
	for _, e := range edges {
		r.pairs = append(r.pairs, quality.MakePair(docs[e.U].ID, docs[e.V].ID))
	}
	r.pairs = quality.SortPairs(r.pairs)
	return r, nil
}

// ekzhu runs github.com/ekzhu/minhash-lsh: its MinHash (128 hash functions over our
// word-5-shingle fingerprints, computed in the timed part, pushed as 8 bytes each) and its LSH index with 64-bit values,
// whose bands and rows it chooses itself from the threshold. Its index is batch-built
// (Add, then Index, then Query), so every document is added first and then each looks
// up the earlier ones; a candidate is verified by its signatures' share of equal values.
func ekzhu(docs []eval.Doc, t float64) result {
	const numHash = 128
	start := time.Now()
	idx := minhashlsh.NewMinhashLSH64(numHash, t)
	sigs := make([][]uint64, len(docs))
	var b [8]byte
	var fps []uint64
	sh := eval.Words5()
	for i, d := range docs {
		fps = sh.Append(fps[:0], d.Text)
		mh := minhashlsh.NewMinhash(1, numHash)
		for _, fp := range fps {
			binary.LittleEndian.PutUint64(b[:], fp)
			mh.Push(b[:])
		}
		sigs[i] = mh.Signature()
		idx.Add(i, sigs[i])
	}
	idx.Index()
	var pairs []quality.Pair
	for i := range docs {
		for _, key := range idx.Query(sigs[i]) {
			j := key.(int)
			if j < i && agreement(sigs[i], sigs[j]) >= t {
				pairs = append(pairs, quality.MakePair(docs[j].ID, docs[i].ID))
			}
		}
	}
	k, l := idx.Params()
	r := result{name: "ekzhu/minhash-lsh", params: fmt.Sprintf("%d hashes, %d bands × %d rows (its choice)", numHash, l, k),
		elapsed: time.Since(start)}
	r.pairs = quality.SortPairs(pairs)
	return r
}

// mfondaDistance and mfondaBlocks are the simhash defaults of lsh.Config (Hamming
// distance 6, 8 blocks: 28 tables), given to github.com/mfonda/simhash too.
const mfondaDistance, mfondaBlocks = lsh.DefaultSimDistance, 8

// mfonda runs github.com/mfonda/simhash: its Simhash (Vectorize, then Fingerprint) over a
// FeatureSet of our word-5-shingle fingerprints, each distinct shingle once with weight 1
// (its Feature is any 64-bit sum with an integer weight; this is lsh's tf "set"), and its
// Compare (Hamming distance) ≤ 6 as the verdict. It has no index, so it gets ours: the
// permuted-block tables of lsh.NewSimHashIndex(6, 8) — 28 keys of 16 bits per
// document, the layout the simhash row uses — in a map, each document looking up the
// earlier ones as eval.Verify does. Shingling and the index are timed with it.
func mfonda(docs []eval.Doc) (result, error) {
	tables, err := lsh.NewSimHashIndex(mfondaDistance, mfondaBlocks)
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	index := make(map[uint64][]int32)
	fps := make([]uint64, len(docs))
	seen := make([]int32, len(docs)) // seen[j] == i+1: j already compared with i
	sh := eval.Words5()
	var fs shingleFeatures
	var keys []uint64
	var pairs []quality.Pair
	for i, d := range docs {
		fs.set = sh.Append(fs.set[:0], d.Text)
		slices.Sort(fs.set)
		fs.set = slices.Compact(fs.set)
		fps[i] = simhash.Simhash(&fs)
		keys = tables.AppendKeys(keys[:0], fps[i])
		slices.Sort(keys)
		keys = slices.Compact(keys)
		for _, k := range keys {
			for _, j := range index[k] {
				if seen[j] == int32(i+1) {
					continue
				}
				seen[j] = int32(i + 1)
				if simhash.Compare(fps[j], fps[i]) <= mfondaDistance {
					pairs = append(pairs, quality.MakePair(docs[j].ID, docs[i].ID))
				}
			}
		}
		for _, k := range keys {
			index[k] = append(index[k], int32(i))
		}
	}
	r := result{name: "mfonda/simhash", elapsed: time.Since(start),
		params: fmt.Sprintf("64 bits over our shingle set; Compare ≤ %d; no index of its own: our %d tables (%d blocks), %d keys/doc",
			mfondaDistance, tables.Tables(), mfondaBlocks, tables.Tables())}
	r.pairs = quality.SortPairs(pairs)
	return r, nil
}

// shingleFeatures is a simhash.FeatureSet of shingle fingerprints, each a feature of
// weight 1 whose sum is the fingerprint itself (xxhash-derived, so every bit is an
// unbiased coin). The features point into set: no allocation per feature.
type shingleFeatures struct {
	set   []uint64
	feats []simhash.Feature
}

type shingleFeature uint64

func (f *shingleFeature) Sum() uint64 { return uint64(*f) }
func (f *shingleFeature) Weight() int { return 1 }

func (s *shingleFeatures) GetFeatures() []simhash.Feature {
	s.feats = s.feats[:0]
	for i := range s.set {
		s.feats = append(s.feats, (*shingleFeature)(&s.set[i]))
	}
	return s.feats
}

// agreement is the share of equal positions of two signatures.
func agreement(a, b []uint64) float64 {
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

func table(w io.Writer, n int, truth eval.Truth, results ...result) error {
	fmt.Fprintln(w, "| system | parameters | docs/s | × dedupstream | pair recall | × dedupstream | pair precision | × dedupstream |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
	var base [3]float64
	for _, r := range results {
		pc, err := quality.ComparePairs(r.pairs, truth.Pairs, nil, nil)
		if err != nil {
			return err
		}
		v := [3]float64{float64(n) / r.elapsed.Seconds(), ratio(pc.Common, pc.Theirs), ratio(pc.Common, pc.Ours)}
		if r.ours {
			base = v
		}
		fmt.Fprintf(w, "| %s | `%s` | %.0f | %.2f | %.4f | %.3f | %.4f | %.3f |\n", r.name, r.params,
			v[0], v[0]/base[0], v[1], v[1]/base[1], v[2], v[2]/base[2])
	}
	return nil
}

func ratio(num, den int64) float64 {
	if den == 0 {
		return 1
	}
	return float64(num) / float64(den)
}
