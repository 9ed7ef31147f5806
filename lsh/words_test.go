package lsh

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/lsh/clean"
)

// Hand-written news-like paragraphs and copies of them with only the word
// forms changed (number, tense, case), as a rewrite or a translation memory
// produces them; irregular forms (rose/rise, said/says) are left alone, as
// Snowball stemmers do not join them. Text is as the cleaner leaves it:
// lower case, single spaces.
const (
	newsEN = "the company reported that its shares rose after the market opened and analysts said " +
		"the board was connecting new plants to the grid while the workers were running the old lines " +
		"at full speed and the report showed that sales of the new cars grew in every region"
	newsENEdited = "the companies report that their share rose after the markets open and an analyst said " +
		"the boards were connected new plant to the grids while the worker was runs the old line " +
		"at full speeds and the reports show that sale of the new car grew in every regions"
	newsRU = "компания сообщила что ее акции выросли после открытия рынка и аналитики сказали " +
		"что совет директоров подключает новые заводы к сети пока рабочие запускают старые линии " +
		"на полную мощность и отчет показал что продажи новых машин выросли во всех регионах"
	newsRUEdited = "компании сообщили что их акция выросла после открытий рынков и аналитик сказал " +
		"что советы директоров подключают новый завод к сетям пока рабочий запускает старую линию " +
		"на полной мощности и отчеты показали что продажа новой машины выросла во всем регионе"
)

func TestAppendText(t *testing.T) {
	f := func(sh Shingling, in, want string) {
		t.Helper()
		if got := string(sh.AppendText([]byte("x "), []byte(in))); got != "x "+want {
			t.Errorf("%s: AppendText(%q) = %q, want %q", sh.Version(), in, got[2:], want)
		}
	}
	en, ru, both := clean.LangEnglish, clean.LangRussian, clean.LangEnglish|clean.LangRussian
	f(Shingling{Stem: en}, "running runs run", "run run run")
	f(Shingling{Stem: en}, "connected connection connecting", "connect connect connect")
	f(Shingling{Stem: ru}, "книги книгой книга книгах", "книг книг книг книг")
	f(Shingling{Stem: ru}, "сообщила сообщил сообщили", "сообщ сообщ сообщ")
	// Each language stems only words of its script.
	f(Shingling{Stem: en}, "runs книгой 42", "run книгой 42")
	f(Shingling{Stem: ru}, "runs книгой 42", "runs книг 42")
	f(Shingling{Stem: both}, "runs книгой 42 λόγος", "run книг 42 λόγος")
	// Stop words go, the rest stays as it is.
	f(Shingling{StopWords: en}, "the cat is on the mat", "cat mat")
	f(Shingling{StopWords: ru}, "кот и собака на ковре", "кот собака ковре")
	f(Shingling{StopWords: en}, "the cat и собака", "cat и собака")
	f(Shingling{StopWords: both, Stem: both}, "the cats were on the mats и собаки на коврах",
		"cat mat собак ковр")
	// A text of stop words only keeps them (stemmed), so it still has shingles.
	f(Shingling{StopWords: en}, "to be or not to be", "to be or not to be")
	f(Shingling{StopWords: en, Stem: en}, "he was having it", "he was have it")
	// Off: the text as it is, double spaces and all.
	f(Shingling{}, "the  runs", "the  runs")
	f(Shingling{StopWords: en}, "", "")
}

// TestStemRaisesResemblance: a copy that changes only word forms shares few
// 5-word shingles with its original (every changed word breaks five), and
// nearly all of them once both are stemmed and stripped of stop words.
func TestStemRaisesResemblance(t *testing.T) {
	f := func(name, a, b string, langs clean.Langs) {
		t.Helper()
		plain := Shingling{Length: 5, Offset: 1}
		stem := plain
		stem.StopWords, stem.Stem = langs, langs
		j := func(sh Shingling) float64 {
			return OverlapOf(SortedSet(sh.Append(nil, []byte(a))), SortedSet(sh.Append(nil, []byte(b)))).Resemblance()
		}
		jp, js := j(plain), j(stem)
		t.Logf("%s: J = %.3f plain, %.3f with %s", name, jp, js, stem.Version())
		if jp > 0.2 || js < 0.6 {
			t.Errorf("%s: J = %.3f plain (want <= 0.2), %.3f stemmed (want >= 0.6)", name, jp, js)
		}
	}
	f("en", newsEN, newsENEdited, clean.LangEnglish)
	f("ru", newsRU, newsRUEdited, clean.LangRussian)
	f("en+ru", newsEN+" "+newsRU, newsENEdited+" "+newsRUEdited, clean.LangEnglish|clean.LangRussian)
}

// TestStemVersion: stop words and stemming are part of every shingling
// method's version (so a state sketched with them refuses a configuration
// without them), the default version is unchanged, and each Method's
// sketch of a text equals its sketch, without the options, of the
// rewritten text.
func TestStemVersion(t *testing.T) {
	for _, name := range []string{MethodMinHash, MethodOPH, MethodBottomK, MethodModM, MethodFull, MethodSuperShingle, MethodSimHash} {
		plain := Config{Method: name}
		plain.EnsureDefaults()
		stem := plain
		stem.StopWords, stem.Stem = "en", "auto"
		mp, err := NewMethod(plain, nil)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := NewMethod(stem, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ms.Version(), "-stopen-stemenru") || ms.Version() == mp.Version() {
			t.Errorf("%s: version with stem %q, without %q", name, ms.Version(), mp.Version())
		}
		if name == MethodMinHash && ms.Version() != "minhash128-b10r5-w5-stopen-stemenru-16bit" {
			t.Errorf("minhash version with stem %q", ms.Version())
		}
		var sc Scratch
		text := []byte(newsEN + " " + newsRU)
		rewritten := stem.Shingling().AppendText(nil, text)
		s1, k1 := ms.Sketch(&sc, text, nil, nil)
		s2, k2 := mp.Sketch(&sc, rewritten, nil, nil)
		if string(s1) != string(s2) || len(k1) != len(k2) {
			t.Errorf("%s: sketch of the text with stemming differs from the plain sketch of the rewritten text", name)
		}
	}
	var def Config
	def.EnsureDefaults()
	if m, _ := NewMethod(def, nil); m.Version() != "oph128-b10r5-w5-16bit" {
		t.Errorf("default version %q changed", m.Version())
	}
}

func TestStemValidate(t *testing.T) {
	f := func(c Config, want string) {
		t.Helper()
		c.EnsureDefaults()
		err := c.Validate()
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%+v) = %v, want %q", c, err, want)
		}
	}
	f(Config{Stem: "en", StopWords: "en+ru"}, "")
	f(Config{Stem: "german"}, "sketch.stem: must be")
	f(Config{StopWords: "fr"}, "sketch.stopwords: must be")
	f(Config{Method: MethodIMatch, Stem: "en"}, "must be none with imatch")
	f(Config{Method: MethodSimHash, SimHash: SimHashParams{IDF: true}, StopWords: "ru"}, "must be none with simhash")
	f(Config{Method: MethodSimHash, SimHash: SimHashParams{Words: true}, StopWords: "ru", Stem: "ru"}, "")
}

// TestForMethodKeepsStemming: the configuration of another method beside
// one with stop words and stemming (as compare sketches every method) shares
// them, so its sketches are of the same rewritten text; the methods that
// look words up in a vocabulary of unstemmed words get none, and every
// configuration is valid.
func TestForMethodKeepsStemming(t *testing.T) {
	f := func(c Config) {
		t.Helper()
		c.EnsureDefaults()
		for _, name := range MethodNames() {
			o := c.ForMethod(name)
			want := c.Shingling()
			if name == MethodIMatch || name == MethodSimHash && c.SimHash.IDF {
				want.StopWords, want.Stem = 0, 0
			}
			if got := o.Shingling(); got != want {
				t.Errorf("%s beside %s: shingling %+v, want %+v", name, c.Method, got, want)
			}
			if err := o.Validate(); err != nil {
				t.Errorf("%s beside %s: %v", name, c.Method, err)
			}
		}
	}
	f(Config{Method: MethodMinHash, StopWords: "en", Stem: "auto"})
	f(Config{Method: MethodOPH, Stem: "ru", Params: Params{Shingle: 3}, ShingleOffset: 2})
	f(Config{Method: MethodBottomK, StopWords: "en+ru", SimHash: SimHashParams{IDF: true}})
	f(Config{Method: MethodIMatch})
}

// TestStemCache: the stems a Scratch caches (and clears when full) give the
// same words as stemming every word afresh.
func TestStemCache(t *testing.T) {
	sh := Shingling{Length: 5, Offset: 1, StopWords: clean.LangEnglish, Stem: clean.LangEnglish | clean.LangRussian}
	var sc Scratch
	r := rand.New(rand.NewPCG(9, 9))
	for _, text := range [][]byte{[]byte(newsEN + " " + newsRU), randomText(r, 60<<10), []byte(newsENEdited)} {
		sc.shingles = sh.appendScratch(&sc, sc.shingles[:0], text)
		if want := sh.AppendText(nil, text); string(sc.words) != string(want) {
			t.Fatalf("cached stems give %.80q…, want %.80q…", sc.words, want)
		}
		if len(sc.stems) > clean.MaxStems {
			t.Fatalf("stem cache holds %d words, at most %d", len(sc.stems), clean.MaxStems)
		}
	}
}
