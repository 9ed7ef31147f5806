package gen

import (
	"reflect"
	"strings"
	"testing"
)

func TestPublications(t *testing.T) {
	var src []PubSource
	for i := range 200 {
		src = append(src, PubSource{Title: "Story number " + strings.Repeat("x", i%7+1), Body: strings.Repeat("word ", 25+i%40)})
	}
	src = append(src, PubSource{Title: "", Body: strings.Repeat("w ", 50)}, PubSource{Title: "short", Body: "too few words"})
	a, b := Publications(src, PubOptions{Seed: 1}), Publications(src, PubOptions{Seed: 1})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different publications")
	}
	pos := map[string]int{}
	originals, copies := 0, 0
	for i, p := range a {
		pos[p.ID] = i
		j, ok := pos[p.Origin]
		if !ok || j > i {
			t.Fatalf("%s: origin %s not earlier", p.ID, p.Origin)
		}
		if p.ID == p.Origin {
			originals++
		} else {
			copies++
			if p.Edits == "" || p.Edits == "original" {
				t.Errorf("%s: copy without edits", p.ID)
			}
		}
		if _, ok := p.Record["title"].(string); !ok || p.Record["id"] != p.ID {
			t.Errorf("%s: record %v", p.ID, p.Record)
		}
	}
	if originals != 200 || copies < 50 || copies > 150 {
		t.Errorf("%d originals, %d copies; want 200 and about 35%% copies", originals, copies)
	}
}
