package state

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
)

// Benchmark workload: documents with 10 bands and a 256-byte sketch (the default
// oph: 128 bins of 16 bits, 10 bands of 5 rows), written in batches of 500 as
// the stream does. The lookup benchmarks share one on-disk database of
// fixtureDocs documents, built on first use by whichever benchmark needs it
// and removed by TestMain.
const (
	benchBands  = 10
	benchSketch = 256
	benchBatch  = 500
	fixtureDocs = 100_000
)

// fixture is the shared lookup database; owned by TestMain.
var fixture struct {
	once  sync.Once
	dir   string
	err   error
	files map[string]int64 // bytes on disk after Close, by file extension
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.dir != "" {
		_ = os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

// splitmix64 spreads a counter over 64 bits.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// benchDoc is document j of the fixture (seq j+1). Groups of five consecutive
// documents share bands 0-2 (near duplicates); every tenth document repeats the
// content hash of the one before it (exact duplicates).
func benchDoc(j uint64, sketch []byte) Doc {
	id := strconv.AppendUint([]byte("https://news.example.org/2024/05/story-"), j, 10)
	h := j
	if j%10 == 9 {
		h--
	}
	d := Doc{
		Seq: j + 1, ID: string(id), URL: string(id) + "?utm_source=rss",
		Source: "pages/0/" + strconv.FormatUint(j, 10), Time: time.Unix(1714564800, int64(j)*1e6),
		ContentHash: splitmix64(h), Verdict: 1, Cluster: j + 1, Sketch: sketch,
		Bands: benchBandsOf(j),
	}
	return d
}

func benchBandsOf(j uint64) []uint64 {
	bands := make([]uint64, benchBands)
	for b := range bands {
		if b < 3 {
			bands[b] = splitmix64(j/5<<8 | uint64(b))
		} else {
			bands[b] = splitmix64(1<<62 | j<<8 | uint64(b))
		}
	}
	return bands
}

func benchSketchBytes(j uint64) []byte {
	var seed [32]byte
	copy(seed[:], strconv.FormatUint(j, 10))
	sk := make([]byte, benchSketch)
	_, _ = rand.NewChaCha8(seed).Read(sk)
	return sk
}

// fixtureDir returns the directory of the shared lookup database, building it once.
func fixtureDir(b *testing.B) string {
	b.Helper()
	fixture.once.Do(func() { fixture.dir, fixture.files, fixture.err = buildFixture() })
	if fixture.err != nil {
		b.Fatal(fixture.err)
	}
	return fixture.dir
}

func buildFixture() (string, map[string]int64, error) {
	dir, err := os.MkdirTemp("", "dedupstream-state-bench-")
	if err != nil {
		return "", nil, err
	}
	s, err := Open(Options{Dir: dir, Logger: zap.NewNop()})
	if err != nil {
		return dir, nil, err
	}
	batch := make([]Doc, 0, benchBatch)
	for j := range uint64(fixtureDocs) {
		batch = append(batch, benchDoc(s.Reserve()-1, benchSketchBytes(j)))
		if len(batch) == benchBatch {
			if err := s.Put(batch); err != nil {
				return dir, nil, err
			}
			batch = batch[:0]
		}
	}
	if err := s.Close(); err != nil { // flushes the memtable to an SSTable
		return dir, nil, err
	}
	files, err := bytesByExt(dir)
	return dir, files, err
}

func bytesByExt(dir string) (map[string]int64, error) {
	files := map[string]int64{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		fi, err := e.Info()
		if err == nil {
			files[filepath.Ext(path)] += fi.Size()
			files["total"] += fi.Size()
		}
		return err
	})
	return files, err
}

// cpuMeter reports the process CPU time per operation, which on a shared machine
// is steadier than wall time and includes badger's background work.
type cpuMeter struct {
	b     *testing.B
	start int64
}

func startCPU(b *testing.B) cpuMeter {
	b.ReportAllocs()
	b.ResetTimer()
	return cpuMeter{b, processCPU()}
}

func (m cpuMeter) stop() {
	m.b.StopTimer()
	if m.start > 0 {
		m.b.ReportMetric(float64(processCPU()-m.start)/float64(m.b.N), "cpu-ns/op")
	}
}

// openFixture opens the shared database for one benchmark run.
func openFixture(b *testing.B, o Options) *Store {
	o.Dir, o.Logger = fixtureDir(b), zap.NewNop()
	return mustOpen(b, o)
}

func BenchmarkPut(b *testing.B) {
	s := mustOpen(b, Options{Dir: b.TempDir(), Logger: zap.NewNop()})
	sketch := benchSketchBytes(0)
	batch := make([]Doc, benchBatch)
	defer startCPU(b).stop()
	for range b.N {
		b.StopTimer()
		for i := range batch {
			batch[i] = benchDoc(s.Reserve()-1, sketch)
		}
		b.StartTimer()
		if err := s.Put(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkCandidatesMiss(b *testing.B) {
	s := openFixture(b, Options{})
	r := rand.New(rand.NewPCG(1, 1))
	bands := make([]uint64, benchBands)
	var dst []Doc
	defer startCPU(b).stop()
	for range b.N {
		for i := range bands {
			bands[i] = r.Uint64()
		}
		var err error
		if dst, _, err = s.Candidates(dst[:0], bands, fixtureDocs+1); err != nil || len(dst) != 0 {
			b.Fatalf("Candidates = %d docs, %v", len(dst), err)
		}
	}
}

func BenchmarkCandidatesHit(b *testing.B) {
	s := openFixture(b, Options{})
	r := rand.New(rand.NewPCG(2, 2))
	var dst []Doc
	defer startCPU(b).stop()
	for range b.N {
		bands := benchBandsOf(r.Uint64N(fixtureDocs))
		var err error
		if dst, _, err = s.Candidates(dst[:0], bands, fixtureDocs+1); err != nil || len(dst) != 5 {
			b.Fatalf("Candidates = %d docs, %v; want the 5 of a group", len(dst), err)
		}
	}
}

// BenchmarkCandidatesCapped: a lookup that matches more documents than
// MaxCandidates (32): a hot bucket in band 0 shared by every document (cut at
// MaxBucket), a warm one in band 1 shared by one document in ten, and bands
// 2-8 shared with one late document only, the true match.
func BenchmarkCandidatesCapped(b *testing.B) {
	const docs = 2000
	s := mustOpen(b, Options{InMemory: true, Logger: zap.NewNop()})
	batch := make([]Doc, 0, benchBatch)
	for j := range uint64(docs) {
		d := benchDoc(s.Reserve()-1, benchSketchBytes(j))
		d.Bands[0] = 7
		if j%10 == 0 {
			d.Bands[1] = 8
		}
		batch = append(batch, d)
		if len(batch) == benchBatch {
			if err := s.Put(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	const match = docs - 3
	bands := benchBandsOf(match)
	bands[0], bands[1] = 7, 8
	var dst []Doc
	defer startCPU(b).stop()
	for range b.N {
		var capped Capped
		var err error
		if dst, capped, err = s.Candidates(dst[:0], bands, docs+1); err != nil || !capped.Candidates || len(dst) != DefaultMaxCandidates {
			b.Fatalf("Candidates = %d docs, %+v, %v; want a capped answer", len(dst), capped, err)
		}
	}
}

func BenchmarkExact(b *testing.B) {
	s := openFixture(b, Options{})
	r := rand.New(rand.NewPCG(3, 3))
	defer startCPU(b).stop()
	for range b.N {
		j := r.Uint64N(fixtureDocs)
		if _, ok, err := s.Exact(splitmix64(j), fixtureDocs+1); err != nil || ok != (j%10 != 9) {
			b.Fatalf("Exact(doc %d) = %v, %v", j, ok, err)
		}
	}
}

func BenchmarkExactMiss(b *testing.B) {
	s := openFixture(b, Options{})
	r := rand.New(rand.NewPCG(4, 4))
	defer startCPU(b).stop()
	for range b.N {
		if _, ok, err := s.Exact(r.Uint64(), fixtureDocs+1); err != nil || ok {
			b.Fatalf("Exact = %v, %v", ok, err)
		}
	}
}

func BenchmarkReplayedMiss(b *testing.B) {
	s := openFixture(b, Options{})
	defer startCPU(b).stop()
	for i := range b.N {
		if _, ok, err := s.Replayed("pages/1/"+strconv.Itoa(i), uint64(i)); err != nil || ok {
			b.Fatalf("Replayed = %v, %v", ok, err)
		}
	}
}

// Live workload: the stream's default of 10 bands, and enough documents that
// they fill more than one memtable, as in a running pipeline.
const (
	liveBands = benchBands
	liveDocs  = 50_000
)

// openLive opens a new on-disk store holding liveDocs documents that are still in
// its memtables (nothing is closed, so nothing is compacted away).
func openLive(b *testing.B) *Store {
	s := mustOpen(b, Options{Dir: b.TempDir(), Logger: zap.NewNop()})
	sketch := benchSketchBytes(0)
	batch := make([]Doc, 0, benchBatch)
	for range liveDocs {
		seq := s.Reserve()
		d := benchDoc(seq-1, sketch)
		d.Bands = make([]uint64, liveBands)
		for i := range d.Bands {
			d.Bands[i] = splitmix64(seq<<8 | uint64(i))
		}
		if batch = append(batch, d); len(batch) == benchBatch {
			if err := s.Put(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return s
}

// BenchmarkDocLookupMissLive times the lookups the stream makes for one unique
// document (Replayed, Exact, Candidates over 10 bands: 12 lookups of the
// in-memory indexes that all miss) against a store whose documents are still
// in its memtables. A band lookup may land, rarely, on another key's bucket
// (the index keeps 32-bit fingerprints: package postings), and Candidates
// returns its documents for the stream to verify: about once in 2.4M band
// lookups here. Those are counted, and only a rate well above that fails.
func BenchmarkDocLookupMissLive(b *testing.B) {
	s := openLive(b)
	r := rand.New(rand.NewPCG(5, 5))
	bands := make([]uint64, liveBands)
	var dst []Doc
	var falseHits int
	defer startCPU(b).stop()
	i := 0
	for ; b.Loop(); i++ {
		for j := range bands {
			bands[j] = r.Uint64()
		}
		hash := r.Uint64()
		_, replayed, err1 := s.Replayed("pages/1/"+strconv.Itoa(i), hash)
		_, exact, err2 := s.Exact(hash, liveDocs+1)
		var err3 error
		dst, _, err3 = s.Candidates(dst[:0], bands, liveDocs+1)
		if err := errors.Join(err1, err2, err3); err != nil || replayed || exact {
			b.Fatalf("lookup %d: replayed %v, exact %v, %v", i, replayed, exact, err)
		}
		if len(dst) > 0 {
			falseHits++
		}
	}
	if falseHits > 10 && falseHits*10_000 > i {
		b.Fatalf("%d of %d lookups found candidates for random band keys", falseHits, i)
	}
}

// BenchmarkStats times Stats and reports the fixture's bytes per document on disk,
// measured from its files after Close (memtable flushed, value log truncated).
func BenchmarkStats(b *testing.B) {
	s := openFixture(b, Options{})
	defer startCPU(b).stop()
	var st Stats
	for range b.N {
		st = s.Stats()
	}
	b.StopTimer()
	if st.Docs != fixtureDocs {
		b.Fatalf("Stats.Docs = %d, want %d", st.Docs, fixtureDocs)
	}
	for _, ext := range []string{".sst", ".vlog", "total"} {
		b.ReportMetric(float64(fixture.files[ext])/fixtureDocs, "B/doc"+ext)
	}
	b.Logf("files after Close: %v; Stats while open: %+v", fixture.files, st)
}
