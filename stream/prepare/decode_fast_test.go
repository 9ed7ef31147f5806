package prepare

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

// fastSeeds are records the fast path must take, and ones it must leave to
// the full parser; FuzzDecodeFast grows them.
var fastSeeds = []string{
	`{"id":"a","url":"https://x/","title":"T","html":"<p>hi</p>","body":"text"}`,
	`{"id": 17, "body": "plain \"quoted\" \\ \/ \b\f\n\r\t \u00e9\u4e2d text"}`,
	` {"meta":{"tags":["a",{"b":[1,2.5e-3,-0,true,false,null]}]},"id":-1.5E+7,"html":"<b>x</b>"} `,
	`{"id":"x","body":"first","body":"second"}`,
	`{"id":"x","body":"ok","url":null,"title":null}`,
	`{"id":"x","body":"ok","url":3}`,            // wrong type: the full parser's error
	`{"id":true,"body":"ok"}`,                   // wrong type
	`{"id":"x"}`,                                // no body
	`{"id":"x","body":"a\ud83d\ude00b"}`,        // surrogate pair
	`{"id":"x","body":"lone \ud800 surrogate"}`, // replaced by the full parser
	`{"id":"x","body":"ok"} trailing`,           // data after the object
	`{"id":"x","body":"ok"}}`,                   // what dec.More accepts
	`{"id":"x","body":"caf\xe9"}`,               // not UTF-8: the charset fallback
	`{"id":"x","body":"tab	inside"}`,            // a raw control character
	`{"id":01,"body":"x"}`,                      // not a JSON number
	`{"id":"x","body":"x",}`,                    // trailing comma
	`{"\u0069d":"escaped key","body":"x"}`,      // a key with an escape
	`{"id":"x","body":"x","deep":[[[[[[[[]]]]]]]]}`,
	`[1,2]`,
	`{}`,
	`{"id":"x","html":"<p>a\nb</p>","body":"c\td"}`,               // two escaped bodies in one buffer
	`{"id":"x","body":"fir\nst","body":"sec\u00e9ond"}`,           // the second escaped body wins
	`{"id":"x\ty","body":"long\n\n\n\n\n\n\n\n\n\n body"}`,        // longer than the last one's
	`{"id":"x","html":"<p>a\nb</p>","body":"smile \ud83d\ude00"}`, // a surrogate after an escaped body
	`{"id":"x","body":"a\nb","body":"\ud83d\ude00"}`,
}

// TestDecodeFastAgrees: on the seeds, whatever the fast path returns is what
// the full parser returns, and it takes the common records.
func TestDecodeFastAgrees(t *testing.T) {
	d := testDecoder(FormatJSON)
	took := 0
	for _, v := range fastSeeds {
		if checkFast(t, d, []byte(v)) {
			took++
		}
	}
	if took < 6 {
		t.Errorf("the fast path took %d of the seed records, want the 6 common ones at least", took)
	}
	if _, _, ok := d.fastRecord([]byte(`{"id":"x","body":"caf`+"\xe9"+`"}`), nil); ok {
		t.Error("the fast path took a record that is not UTF-8")
	}
}

// FuzzDecodeFast: for any value, a record the fast path returns is the full
// parser's record.
func FuzzDecodeFast(f *testing.F) {
	for _, v := range fastSeeds {
		f.Add([]byte(v))
	}
	d := testDecoder(FormatJSON)
	f.Fuzz(func(t *testing.T, v []byte) { checkFast(t, d, v) })
}

// reused is the buffer checkFast unescapes into: earlier records left
// bytes in it, as in a Scratch's.
var reused = []byte("left over")

// checkFast checks one record on the fast path, unescaping into reused.
func checkFast(t *testing.T, d decoder, v []byte) bool {
	t.Helper()
	fast, grown, ok := d.fastRecord(v, reused)
	defer func() { reused = append(grown[:0], "left over from the record before"...) }()
	if !ok {
		return false
	}
	full, ierr := d.parseJSON(nil, v, "")
	if ierr != nil {
		t.Fatalf("fast path took %q, the full parser refuses it: %v", v, ierr)
	}
	if !reflect.DeepEqual(fast, full) {
		t.Fatalf("record %q:\nfast %+v\nfull %+v", strings.ToValidUTF8(string(v), "?"), fast, full)
	}
	return true
}

// TestPlainWord: plainWord says a word is plain exactly when plainByte says
// so of each of its bytes, for every pair of byte values at every pair of
// positions (a borrow from one byte could hide or fake another's).
func TestPlainWord(t *testing.T) {
	for i := range 8 {
		for j := range 8 {
			for a := range 256 {
				for b := range 256 {
					var w [8]byte
					for k := range w {
						w[k] = 'a'
					}
					w[i], w[j] = byte(a), byte(b)
					want := true
					for _, c := range w {
						want = want && plainByte[c]
					}
					if got := plainWord(binary.LittleEndian.Uint64(w[:])); got != want {
						t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
					}
				}
			}
		}
	}
}
