package corpus_test

import (
	"fmt"
	"strings"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
)

func ExampleReadJSONL() {
	in := `{"id":"n1","title":"Ferry  times","text":"The morning ferry leaves at seven."}
{"headline":"Без id","content":"Ёжик в тумане."}
`
	err := corpus.ReadJSONL(strings.NewReader(in), corpus.Fields{Title: "title|headline"}, func(d corpus.Doc) error {
		fmt.Printf("%s | %s | %s\n", d.ID, d.Title, d.Body)
		return nil
	})
	fmt.Println(err)
	// Output:
	// jsonl/n1 | Ferry times | The morning ferry leaves at seven.
	// jsonl/#2 | Без id | Ёжик в тумане.
	// <nil>
}
