package lsh

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/lsh/clean"
)

// tokenRuns are runs of one repeated token as mail and tables have them, as raw page text: 300
// quoted-printable "=3D" and "=09", and an HTML table of 100 rows of three "none" cells.
func tokenRuns() map[string]string {
	return map[string]string{
		"=3D":   strings.Repeat("=3D", 300),
		"=09":   strings.Repeat("=09", 300),
		"table": "<table>" + strings.Repeat("<tr><td>none</td><td>none</td><td>none</td></tr>", 100) + "</table>",
	}
}

// runPage returns the cleaned text of testdata/runs/name followed by a run, as the
// stream would clean the page (HTML, so the table is read as cells).
func runPage(t *testing.T, name, run string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/runs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := clean.New(clean.Options{}).HTML(nil, []byte("<html><body><p>"+string(b)+"</p>\n"+run+"</body></html>"))
	return text
}

// TestSimHashRunsGolden is the golden case of simhash's tf weighting: two unrelated texts of about 120
// words (exact resemblance ≈ 0.004) that end in the same run of one token. Counted by
// term frequency the run's shingle outweighs all the others and the fingerprints come
// out equal; counted once ("set", the default) or as 1 + ln tf capped ("log"), the
// fingerprints are as far apart as those of any two unrelated texts (32 ± 4 bits).
func TestSimHashRunsGolden(t *testing.T) {
	f := func(tf string, wantNear bool) {
		t.Helper()
		m := testMethod(t, MethodSimHash, Config{SimHash: SimHashParams{TF: tf}}, nil)
		for name, run := range tokenRuns() {
			a, b := runPage(t, "bees.txt", run), runPage(t, "bridge.txt", run)
			sa, _ := m.Sketch(&Scratch{}, a, nil, nil)
			sb, _ := m.Sketch(&Scratch{}, b, nil, nil)
			e, err := m.Compare(sa, sb)
			if err != nil {
				t.Fatal(err)
			}
			sh := Shingling{Length: 5, Offset: 1}
			j := Jaccard(SortedSet(sh.Append(nil, a)), SortedSet(sh.Append(nil, b)))
			t.Logf("%s, run %s: exact resemblance %.3f, distance %d, near %v", m.Version(), name, j, e.Distance, e.Near)
			if j > 0.05 {
				t.Fatalf("run %s: the texts share %.3f of their shingles; they should be unrelated", name, j)
			}
			if e.Near != wantNear || !wantNear && e.Distance < 16 {
				t.Errorf("%s, run %s: distance %d, near %v; want near %v", m.Version(), name, e.Distance, e.Near, wantNear)
			}
		}
	}
	f("", false)
	f(SimHashTFLog, false)
	f(SimHashTFCount, true) // the defect the others fix
}

// TestSimHashTFIsAWeighting checks, at fixed seeds, that the weightings are what they
// say on shuffled multisets of features with repeats: "set" gives exactly the
// fingerprint of the set, "log" that of the distinct features weighted
// min(1 + ln tf, 4) (summed in order of first occurrence, as floating-point sums
// depend on the order), "count" that of the multiset in any order.
func TestSimHashTFIsAWeighting(t *testing.T) {
	s := NewSimHash(1)
	methods := map[string]*simHashMethod{}
	for _, tf := range []string{SimHashTFSet, SimHashTFLog, SimHashTFCount} {
		methods[tf] = testMethod(t, MethodSimHash, Config{SimHash: SimHashParams{TF: tf}}, nil).(*simHashMethod)
	}
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 12))
		set, _ := containPair(r, 1+r.IntN(600), 0, 0)
		var multi []uint64
		counts := map[uint64]int{}
		for _, x := range set {
			n := 1
			if r.IntN(8) == 0 {
				n += r.IntN(500)
			}
			counts[x] = n
			for range n {
				multi = append(multi, x)
			}
		}
		r.Shuffle(len(multi), func(i, j int) { multi[i], multi[j] = multi[j], multi[i] })
		var first []uint64 // the distinct features in order of first occurrence
		var logw []float64
		seen := map[uint64]bool{}
		for _, x := range multi {
			if !seen[x] {
				seen[x] = true
				first = append(first, x)
				logw = append(logw, min(1+math.Log(float64(counts[x])), 4))
			}
		}
		want := map[string]uint64{
			SimHashTFSet:   s.Fingerprint(set),
			SimHashTFLog:   s.Weighted(first, logw),
			SimHashTFCount: s.Fingerprint(slices.Sorted(slices.Values(multi))),
		}
		for tf, fp := range want {
			m := methods[tf]
			sc := &Scratch{shingles: slices.Clone(multi)}
			if got := m.fingerprint(sc); got != fp {
				t.Fatalf("seed %d, tf %s, %d features (%d distinct): fingerprint %016x, want %016x",
					seed, tf, len(multi), len(set), got, fp)
			}
		}
	}
}

// TestSimHashRunWeight checks, at fixed seeds, what one shared feature repeated R = 300
// times does to two otherwise unrelated documents of n distinct features. Under set and
// log their weight vectors have cosine w²/(n + w²), w the run's weight (1, or
// min(1 + ln R, 4) = 4), so the mean Hamming distance must be 64·arccos(cosine)/π
// (Charikar), as in TestSimHashAngle, and no pair may be near (distance ≤ 6). Under
// count every bit's sum is the run's ±300 plus n·(±1) terms whose spread, √n ≤ 22, is
// far smaller, so every pair is near: the defect.
func TestSimHashRunWeight(t *testing.T) {
	const trials, repeats = 200, 300
	weight := map[string]float64{SimHashTFSet: 1, SimHashTFLog: min(1+math.Log(repeats), 4)}
	for _, n := range []int{60, 120, 480} {
		for _, tf := range []string{SimHashTFSet, SimHashTFLog, SimHashTFCount} {
			m := *testMethod(t, MethodSimHash, Config{SimHash: SimHashParams{TF: tf}}, nil).(*simHashMethod)
			w := weight[tf]
			cos := w * w / (float64(n) + w*w)
			want := math.Acos(cos) / math.Pi
			var sum float64
			near := 0
			for trial := range trials {
				r := rand.New(rand.NewPCG(uint64(n), uint64(trial)))
				a, b := containPair(r, n+1, n+1, 1) // the shared feature is a[0] == b[0]
				a, b = withRepeats(a, a[0], repeats-1), withRepeats(b, a[0], repeats-1)
				m.s = NewSimHash(uint64(trial) + 1) // an independent projection per trial
				d := Hamming(m.fingerprint(&Scratch{shingles: a}), m.fingerprint(&Scratch{shingles: b}))
				sum += float64(d) / 64
				near += b2i(d <= DefaultSimDistance)
			}
			got := sum / trials
			se := math.Sqrt(want*(1-want)/64) / math.Sqrt(trials)
			t.Logf("n %d, tf %s: run weight %.2f, cosine %.3f, mean d/64 %.4f, θ/π %.4f, near %d of %d", n, tf, w, cos, got, want, near, trials)
			if tf == SimHashTFCount {
				if near != trials {
					t.Errorf("n %d, tf count: only %d of %d pairs near; the run should decide every bit", n, near, trials)
				}
				continue
			}
			if math.Abs(got-want) > 4*se+0.01 {
				t.Errorf("n %d, tf %s: mean d/64 %.4f, want θ/π = %.4f ± %.4f", n, tf, got, want, 4*se+0.01)
			}
			if near > 0 {
				t.Errorf("n %d, tf %s: %d of %d unrelated pairs near because of one shared run", n, tf, near, trials)
			}
		}
	}
}

// withRepeats returns xs with x appended n more times.
func withRepeats(xs []uint64, x uint64, n int) []uint64 {
	for range n {
		xs = append(xs, x)
	}
	return xs
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
