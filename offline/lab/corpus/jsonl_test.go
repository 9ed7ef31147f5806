package corpus

import (
	"strings"
	"testing"
)

func readJSONL(t *testing.T, in string, fields Fields) ([]Doc, error) {
	t.Helper()
	var docs []Doc
	err := ReadJSONL(strings.NewReader(in), fields, func(d Doc) error { docs = append(docs, d); return nil })
	return docs, err
}

func TestReadJSONLFile(t *testing.T) {
	docs := readDocs(t, "testdata/docs.jsonl", 0)
	want := []Doc{
		{ID: "jsonl/a1", URL: "https://example.org/a", Title: "First doc", Body: "Hello world."},
		{ID: "jsonl/42", Title: "Number id", Body: "Text field used."},
		{ID: "jsonl/#4", Title: "No id", Body: "<p>Привет, ёжик!</p>"},
		{ID: "jsonl/c", Body: "Content field."},
	}
	if len(docs) != len(want) {
		t.Fatalf("got %d docs, want %d: %+v", len(docs), len(want), docs)
	}
	for i := range want {
		if docs[i] != want[i] {
			t.Errorf("doc %d:\n got %+v\nwant %+v", i, docs[i], want[i])
		}
	}
}

func TestReadJSONLFields(t *testing.T) {
	in := `{"key":"k1","link":"u","headline":"h","summary":"s","body":"ignored"}` + "\n" +
		`{"key":true,"summary":"no newline at end"}`
	docs, err := readJSONL(t, in, Fields{ID: "key", URL: "link", Title: "headline", Body: "summary|body"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0] != (Doc{ID: "jsonl/k1", URL: "u", Title: "h", Body: "s"}) ||
		docs[1] != (Doc{ID: "jsonl/true", Body: "no newline at end"}) {
		t.Errorf("got %+v", docs)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	f := func(in, wantErr string) {
		t.Helper()
		_, err := readJSONL(t, in, Fields{})
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ReadJSONL(%q) = %v, want error containing %q", in, err, wantErr)
		}
	}
	f("{\"id\":1}\n{not json}\n", "read jsonl line 2:")
	f(`["an array"]`, "read jsonl line 1:")
	f(`{"id":{"x":1}}`, `field "id": not a string`)
	f(`{"body":["a"]}`, `field "body"`)
}
