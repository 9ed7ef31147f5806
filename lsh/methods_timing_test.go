package lsh

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/lsh/measure"
	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// benchDoc is the 3 KB document of the method benchmarks.
func benchDoc() []byte { return randomText(rand.New(rand.NewPCG(1, 1)), 3<<10) }

// BenchmarkMethodSketch times Method.Sketch, shingling included, on a 3 KB
// document and reports the sketch's bytes and keys per document.
func BenchmarkMethodSketch(b *testing.B) {
	text := benchDoc()
	for _, m := range allMethods(b, testVocabulary(200)) {
		b.Run(m.Version(), func(b *testing.B) {
			var sc Scratch
			sk, keys := m.Sketch(&sc, text, nil, nil)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				sk, keys = m.Sketch(&sc, text, sk[:0], keys[:0])
			}
			b.ReportMetric(float64(len(sk)), "sketch-B/doc")
			b.ReportMetric(float64(len(keys)), "keys/doc")
		})
	}
}

// BenchmarkSketchOnly times each sketch from ready fingerprints (5-word
// shingles, or words for the word-based methods) of the same document.
func BenchmarkSketchOnly(b *testing.B) {
	text := benchDoc()
	shingles := Shingling{Length: 5, Offset: 1}.Append(nil, text)
	words := AppendWords(nil, text)
	v := testVocabulary(200)
	idf := make([]float64, len(words))
	for i, w := range words {
		idf[i] = v.IDF(w)
	}
	p := Params{}
	p.EnsureDefaults()
	sup := Params{NumPerm: 84, Bands: 6, Rows: 14}
	sup.EnsureDefaults()
	mh, ss := NewSketcher(p), NewSketcher(sup)
	oph, bk, mm, sh := NewOPH(128, 1), NewBottomK(128, 1), NewModM(25, 32, 1), NewSimHash(1)
	im := NewIMatch(v, IMatchParams{Select: "idf", Low: 0.2, High: 0.8, MinWords: 3})
	var sig Signature
	var buf []uint64
	var fp uint64
	cases := []struct {
		name string
		fn   func()
	}{
		{"minhash128", func() { sig = mh.Signature(sig, shingles) }},
		{"oph128", func() { sig = oph.Signature(sig, shingles) }},
		{"bottomk128", func() { buf = bk.Sketch(buf[:0], shingles) }},
		{"modm25", func() { buf = mm.Sketch(buf[:0], shingles) }},
		{"full", func() { buf = SortedSet(append(buf[:0], shingles...)) }},
		{"supershingle6x14", func() {
			sig = ss.Signature(sig, shingles)
			buf = MegaShingles(buf[:0], SuperShingles(buf[15:15], sig, 14))
		}},
		{"simhash-shingles", func() { fp = sh.Fingerprint(shingles) }},
		{"simhash-words-idf", func() { fp = sh.Weighted(words, idf) }},
		{"imatch", func() {
			buf = im.Select(buf[:0], words)
			fp, _ = im.Signature(buf)
		}},
	}
	buf = make([]uint64, 0, 4096)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.fn()
			}
		})
	}
	_ = fp
}

func BenchmarkShingling(b *testing.B) {
	text := benchDoc()
	for _, s := range []Shingling{{Length: 5, Offset: 1}, {Length: 5, Offset: 4}, {Length: 1, Offset: 1}, {Length: 7, Offset: 1, Chars: true}} {
		b.Run(s.Version(), func(b *testing.B) {
			dst := s.Append(nil, text)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = s.Append(dst[:0], text)
			}
		})
	}
}

// BenchmarkMethodCompare times Compare of two sketches of documents that
// share about 80% of their text.
func BenchmarkMethodCompare(b *testing.B) {
	text := benchDoc()
	other := slices.Concat(text[:len(text)*4/5], randomText(rand.New(rand.NewPCG(1, 2)), len(text)/5))
	for _, m := range allMethods(b, testVocabulary(200)) {
		b.Run(m.Version(), func(b *testing.B) {
			var sc Scratch
			sa, _ := m.Sketch(&sc, text, nil, nil)
			sb, _ := m.Sketch(&sc, other, nil, nil)
			b.ReportAllocs()
			for b.Loop() {
				_, _ = m.Compare(sa, sb)
			}
		})
	}
}

func BenchmarkEditSimilarity(b *testing.B) {
	text := benchDoc()
	other := slices.Concat(text[:len(text)*9/10], randomText(rand.New(rand.NewPCG(1, 3)), len(text)/10))
	x, y := AppendWords(nil, text), AppendWords(nil, other)
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			measure.EditSimilarity(x, y)
		}
	})
	b.Run("atleast0.8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			measure.EditSimilarityAtLeast(x, y, 0.8)
		}
	})
}

func BenchmarkVocabularyAdd(b *testing.B) {
	text := zipfText(rand.New(rand.NewPCG(1, 4)), 3<<10)
	var vb vocab.Builder
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		vb.Add(text)
	}
}

// stemDoc repeats a hand-written paragraph (words_test.go) to 3 KB.
func stemDoc(paragraph string) []byte {
	var b []byte
	for len(b) < 3<<10 {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, paragraph...)
	}
	return b
}

// BenchmarkShinglingStem times 5-word shingling of a 3 KB English and a
// 3 KB Russian document without and with stop-word removal and stemming,
// and the default minhash Method with both on. The document repeats one
// paragraph, so after its first ~60 words every stem comes from the
// Scratch's cache; the /cold runs start each document with an empty cache
// (every distinct word stemmed once), the cost of a page of new words.
func BenchmarkShinglingStem(b *testing.B) {
	both := clean.LangEnglish | clean.LangRussian
	for _, doc := range []struct {
		name string
		text []byte
	}{{"en", stemDoc(newsEN)}, {"ru", stemDoc(newsRU)}} {
		for _, s := range []Shingling{{}, {StopWords: both}, {Stem: both}, {StopWords: both, Stem: both}} {
			s.Length, s.Offset = 5, 1
			b.Run(doc.name+"/"+s.Version(), func(b *testing.B) {
				var sc Scratch
				dst := s.appendScratch(&sc, nil, doc.text)
				b.SetBytes(int64(len(doc.text)))
				b.ReportAllocs()
				for b.Loop() {
					dst = s.appendScratch(&sc, dst[:0], doc.text)
				}
			})
			if s.Stem == 0 {
				continue
			}
			// cold: a new Scratch (empty stem cache) for every document.
			b.Run(doc.name+"/"+s.Version()+"/cold", func(b *testing.B) {
				var dst []uint64
				b.SetBytes(int64(len(doc.text)))
				b.ReportAllocs()
				for b.Loop() {
					var sc Scratch
					dst = s.appendScratch(&sc, dst[:0], doc.text)
				}
			})
		}
	}
	for _, stem := range []string{"none", "auto"} {
		c := Config{StopWords: stem, Stem: stem}
		if stem == "auto" {
			c.StopWords = "en+ru"
		}
		c.EnsureDefaults()
		m, err := NewMethod(c, nil)
		if err != nil {
			b.Fatal(err)
		}
		text := stemDoc(newsEN)
		b.Run("method/"+m.Version(), func(b *testing.B) {
			var sc Scratch
			sk, keys := m.Sketch(&sc, text, nil, nil)
			b.ReportAllocs()
			for b.Loop() {
				sk, keys = m.Sketch(&sc, text, sk[:0], keys[:0])
			}
		})
	}
}
