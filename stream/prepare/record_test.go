package prepare

import (
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
)

func recordDecoder() decoder {
	d := testDecoder(FormatAuto)
	d.record = []lsh.RecordField{
		{Name: "title", Path: "meta.title", Kind: lsh.KindText},
		{Name: "authors", Path: "authors", Kind: lsh.KindAuthors},
		{Name: "year", Path: "year", Kind: lsh.KindYear},
		{Name: "doi", Path: "doi", Kind: lsh.KindExact},
	}
	return d
}

func TestDecodeRecord(t *testing.T) {
	d := recordDecoder()
	f := func(value, want, wantClass string) {
		t.Helper()
		rec, err := d.decode(&kafka.Message{Key: []byte("k"), Value: []byte(value)})
		switch {
		case wantClass != "":
			if err == nil || err.Class != "dedupstream."+wantClass {
				t.Errorf("decode(%s) error = %v, want class %s", value, err, wantClass)
			}
		case err != nil:
			t.Errorf("decode(%s): %v", value, err)
		default:
			var parts []string
			for _, v := range rec.Fields {
				parts = append(parts, strings.Join(v, "|"))
			}
			if got := strings.Join(parts, "/"); got != want {
				t.Errorf("decode(%s) fields = %q, want %q", value, got, want)
			}
		}
	}
	f(`{"meta":{"title":"T"},"authors":["A B","C, D"],"year":2001,"doi":"10.1/x"}`, "T/A B|C, D/2001/10.1/x", "")
	f(`{"meta":{"title":"T"},"authors":"A B; C, D ;","year":"May 2001","doi":17}`, "T/A B| C, D /2001/17", "")
	f(`{"meta":{"title":""},"authors":[],"year":"","doi":null}`, "", "MissingField")
	f(`{"meta":"flat","year":"2001-01-02"}`, "//2001/", "")
	f(`{"meta":{"title":3}}`, "", "WrongFieldType")
	f(`{"authors":{"name":"x"}}`, "", "WrongFieldType")
	f(`{"authors":["x",null]}`, "", "WrongFieldType")
	f(`{"year":true}`, "", "WrongFieldType")
	f(`{"year":"n.d."}`, "", "InvalidFieldValue")
	f(`{"doi":[1]}`, "", "WrongFieldType")
	f(`not a record`, "", "MalformedJSON")
	f(`{}`, "", "MissingField")
}

func TestRecordTextOrderInsensitive(t *testing.T) {
	d := recordDecoder()
	cl := clean.New(clean.Options{})
	text := func(fields ...[]string) (string, int) {
		b, n := recordText(nil, cl, d.record, fields)
		return string(b), n
	}
	a, na := text([]string{"On Sketches!"}, []string{"John Smith", "Иванов И. И.", "J. Smith"}, []string{"2001"}, nil)
	b, nb := text([]string{"on  sketches"}, []string{"Иван Иванов", "Smith, John"}, []string{"2001"}, nil)
	if a != b || na != 3 || nb != 3 {
		t.Errorf("texts differ: %q (%d fields) and %q (%d)", a, na, b, nb)
	}
	if want := "on sketches\x1esmith j\x1fиванов и\x1e2001\x1e"; a != want {
		t.Errorf("record text %q, want %q", a, want)
	}
	if _, n := text([]string{"..."}, []string{"--"}, nil, nil); n != 0 {
		t.Errorf("fields of punctuation only counted as %d present", n)
	}
}
