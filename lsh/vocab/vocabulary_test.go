package vocab

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func wordFP(w string) uint64 { return xxhash.Sum64String(w) }

func TestVocabularyCounts(t *testing.T) {
	var b Builder
	b.Add([]byte("the cat sat on the mat"))
	b.Add([]byte("the dog"))
	b.Add([]byte("a  cat\tdog")) // an empty word and a tab: skipped
	v := b.Vocabulary()
	f := func(w string, df, cf int64) {
		t.Helper()
		if v.DF(wordFP(w)) != df || v.CF(wordFP(w)) != cf {
			t.Errorf("%q: df %d cf %d, want %d %d", w, v.DF(wordFP(w)), v.CF(wordFP(w)), df, cf)
		}
	}
	f("the", 2, 3)
	f("cat", 1, 1)
	f("dog", 1, 1)
	f("a", 1, 1)
	f("cat\tdog", 0, 0)
	f("", 0, 0)
	if v.Docs() != 3 || v.Tokens() != 9 || v.Len() != 7 {
		t.Errorf("docs %d tokens %d words %d, want 3 9 7", v.Docs(), v.Tokens(), v.Len())
	}
	if got, want := v.IDF(wordFP("the")), math.Log(3.0/2); got != want {
		t.Errorf("idf(the) = %v, want %v", got, want)
	}
	if got, want := v.IDF(wordFP("unseen")), math.Log(3.0); got != want {
		t.Errorf("idf(unseen) = %v, want ln N = %v", got, want)
	}
	if got := v.NIDF(wordFP("cat")); got != 1 {
		t.Errorf("nidf(cat) = %v, want 1", got)
	}
	// The builder goes on counting without changing what it returned.
	b.Add([]byte("cat"))
	if v.DF(wordFP("cat")) != 1 || b.Vocabulary().DF(wordFP("cat")) != 2 {
		t.Error("Vocabulary is not an independent copy")
	}
}

const goldenVocab = "dedupstream vocabulary 1\n" +
	"docs 2 tokens 5\n" +
	"1\t1\tcat\n" +
	"1\t1\tdog\n" +
	"1\t1\tsat\n" +
	"2\t2\tthe\n"

func TestVocabularyFile(t *testing.T) {
	var b Builder
	b.Add([]byte("the cat sat"))
	b.Add([]byte("the dog"))
	v := b.Vocabulary()
	var buf bytes.Buffer
	n, err := v.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) || buf.String() != goldenVocab {
		t.Fatalf("WriteTo = %d, %v:\n%s\nwant:\n%s", n, err, buf.String(), goldenVocab)
	}
	r, err := Read(strings.NewReader(goldenVocab))
	if err != nil {
		t.Fatal(err)
	}
	if r.Digest() != v.Digest() || r.DF(wordFP("the")) != 2 || r.Docs() != 2 {
		t.Error("read vocabulary differs from the one written")
	}
}

func TestReadVocabularyErrors(t *testing.T) {
	f := func(file, want string) {
		t.Helper()
		_, err := Read(strings.NewReader(file))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", file, err, want)
		}
	}
	head := "dedupstream vocabulary 1\ndocs 2 tokens 3\n"
	f("", "missing header")
	f("dedupstream vocabulary 2\n", "line 1")
	f("dedupstream vocabulary 1\ndocs 2\n", "line 2")
	f("dedupstream vocabulary 1\ndocs -2 tokens 0\n", "line 2: docs")
	f("dedupstream vocabulary 1\ndocs 02 tokens 0\n", "canonical")
	f(head+"1\t1\tcat\n", "truncated")
	f(head+"3\t3\tcat\n", "line 3: df 3")
	f(head+"2\t1\tcat\n", "cf 1 < df 2")
	f(head+"1\t4\tcat\n", "exceeds")
	f(head+"1\t1\tdog\n1\t2\tcat\n", "line 4: word \"cat\" not after")
	f(head+"1\t1\tcat\n1\t2\tcat\n", "not after")
	f(head+"1\t1\t\n", "empty")
	f(head+"1\t1\tc\tat\n", "holds a tab")
	f(head+"1 1 cat\n", "missing tab")
	f(head+"1\t3\tcat", "no newline")
	f(head+"x\t3\tcat\n", "df")
	f(head+strings.Repeat("a", maxVocabLine+1)+"\n", "line 3")
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(goldenVocab))
	f.Add([]byte("dedupstream vocabulary 1\ndocs 0 tokens 0\n"))
	f.Add([]byte("dedupstream vocabulary 1\ndocs 3 tokens 4\n1\t1\tа\n2\t3\tб\n"))
	f.Add([]byte("dedupstream vocabulary 1\ndocs 1 tokens 1\n1\t1\t\xff\n"))
	f.Fuzz(func(t *testing.T, file []byte) {
		v, err := Read(bytes.NewReader(file))
		if err != nil {
			return
		}
		// Whatever parses is canonical: writing it back gives the input.
		var buf bytes.Buffer
		if _, err := v.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), file) {
			t.Fatalf("read then written:\n%q\nwas:\n%q", buf.Bytes(), file)
		}
		var sum int64
		for _, ts := range v.terms {
			sum += ts.cf
			if ts.df < 1 || ts.df > v.docs || ts.cf < ts.df {
				t.Fatalf("term %q: df %d cf %d docs %d", ts.word, ts.df, ts.cf, v.docs)
			}
		}
		if sum != v.tokens {
			t.Fatalf("cf sums to %d, tokens %d", sum, v.tokens)
		}
	})
}
