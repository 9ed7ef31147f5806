package state

import "testing"

// TestFindByIDOrURL: each key finds the first document, in Seq order, whose
// id or URL it is; an empty URL matches nothing, and a key no document has
// finds nil.
func TestFindByIDOrURL(t *testing.T) {
	s := openMem(t, Options{})
	docs := []Doc{
		{ID: "a", URL: "https://example.org/a", ContentHash: 1, Verdict: 1},
		{ID: "b", ContentHash: 2, Verdict: 1},
		{ID: "https://example.org/a", ContentHash: 3, Verdict: 1},
	}
	for i := range docs {
		docs[i].Seq = s.Reserve()
	}
	put(t, s, docs...)
	found, err := s.FindByIDOrURL("https://example.org/a", "b", "", "c")
	if err != nil {
		t.Fatal(err)
	}
	f := func(i int, want string) {
		t.Helper()
		switch {
		case want == "" && found[i] != nil:
			t.Errorf("key %d found %q, want none", i, found[i].ID)
		case want != "" && (found[i] == nil || found[i].ID != want):
			t.Errorf("key %d found %+v, want id %q", i, found[i], want)
		}
	}
	f(0, "a")
	f(1, "b")
	f(2, "")
	f(3, "")
}
