package clean_test

import (
	"fmt"

	"github.com/dedupstream/dedupstream/lsh/clean"
)

func Example() {
	o := clean.Options{MaxTokens: 1000}
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		panic(err)
	}
	c := clean.New(o)

	page := []byte(`<html><head><title>Ёлка &amp; ёжик</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<p>«Ёжик» нашёл <b>ﬁ</b>ve Apples&nbsp;— don't worry!</p>
<script>track()</script></body></html>`)
	if clean.LooksLikeHTML(page) {
		text, res := c.HTML(nil, page)
		fmt.Printf("%q\n", text)
		fmt.Printf("title=%q tokens=%d truncated=%v\n", res.Title, res.Tokens, res.Truncated)
	}

	text, res := c.Text(nil, []byte("Straße, İstanbul; ＡＢＣ-123"))
	fmt.Printf("%q tokens=%d\n", text, res.Tokens)
	// Output:
	// "ежик нашел five apples don t worry"
	// title="елка ежик" tokens=7 truncated=false
	// "straße istanbul abc 123" tokens=4
}
