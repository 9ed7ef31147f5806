package quality

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadClustering(t *testing.T) {
	f := func(name, in string, format Format, want string) {
		t.Helper()
		t.Run(name, func(t *testing.T) {
			c, err := ReadClustering(strings.NewReader(in), format)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(c.Groups()); got != want {
				t.Errorf("groups %s, want %s", got, want)
			}
		})
	}
	f("lines", "a b c\n\n  d\te \r\nf\n", FormatAuto, "[[a b c] [d e] [f]]")
	f("labels", "a\tX\nb\tX\r\nc\tY\n", FormatAuto, "[[a b] [c]]")
	// gen's pages: id<TAB>origin, originals naming themselves.
	f("origins", "p1\tp1\np2\tp1\np3\tp3\np4\tp1\n", FormatAuto, "[[p1 p2 p4] [p3]]")
	f("origins, no copies", "p1\tp1\np2\tp2\n", FormatAuto, "[[p1] [p2]]")
	// Two tab-separated ids on every line with no repeated second field: pairs.
	f("tab pairs", "a\tb\nc\td\n", FormatAuto, "[[a b] [c d]]")
	f("tab pairs as labels", "a\tb\nc\td\n", FormatLabels, "[[a] [c]]")
	f("labels with spaces in ids", "my doc\tX\nyour doc\tX\n", FormatLabels, "[[my doc your doc]]")
	// A line with a space is not id<TAB>cluster.
	f("space lines", "a\tX\nb Y\n", FormatAuto, "[[a X] [b Y]]")
	f("empty", "", FormatAuto, "[]")
}

func TestReadClusteringErrors(t *testing.T) {
	f := func(in string, format Format, want string) {
		t.Helper()
		_, err := ReadClustering(strings.NewReader(in), format)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadClustering(%q) error %v, want one containing %q", in, err, want)
		}
	}
	f("a b\n\nc a\n", FormatAuto, `line 3: id "a" already on line 1`)
	f("a\tX\nb\tX\na\tY\n", FormatAuto, `line 3: id "a" already on line 1`)
	f("a\tX\nb\n", FormatLabels, `line 2: want id<TAB>cluster, got "b"`)
	f("a\tX\tY\n", FormatLabels, "line 1: want id<TAB>cluster")
	f("a b", Format(9), "unknown format 9")
}

func FuzzReadClustering(f *testing.F) {
	f.Add("a b c\nd\n")
	f.Add("a\tX\nb\tX\n")
	f.Add("a\tb\n\r\n c\t d \n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ReadClustering(strings.NewReader(in), FormatAuto)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for l, g := range c.Groups() {
			if len(g) == 0 {
				t.Fatalf("cluster %d is empty", l)
			}
			for _, id := range g {
				if id == "" || seen[id] {
					t.Fatalf("id %q empty or repeated", id)
				}
				seen[id] = true
				if got, ok := c.Label(id); !ok || int(got) != l {
					t.Fatalf("Label(%q) = %d, %v, want %d", id, got, ok, l)
				}
			}
		}
		if len(seen) != c.Len() {
			t.Fatalf("%d ids in groups, Len %d", len(seen), c.Len())
		}
	})
}
