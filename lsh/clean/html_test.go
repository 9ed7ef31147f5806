package clean

import (
	"strings"
	"testing"
)

// hasWords reports whether phrase occurs in out as whole words.
func hasWords(out, phrase string) bool {
	return strings.Contains(" "+out+" ", " "+phrase+" ")
}

func TestPagesContent(t *testing.T) {
	c := New(Options{})
	f := func(name, title string, has, hasNot []string) {
		t.Helper()
		out, res := cleanFile(t, c, name)
		if res.Title != title {
			t.Errorf("%s: title %q, want %q", name, res.Title, title)
		}
		for _, p := range has {
			if !hasWords(out, p) {
				t.Errorf("%s: missing %q in %q", name, p, out)
			}
		}
		for _, p := range hasNot {
			if strings.Contains(out, p) {
				t.Errorf("%s: unexpected %q in %q", name, p, out)
			}
		}
	}
	f("news_en.html", "harbour bridge reopens after three year repair the coastal herald",
		[]string{"harbour bridge reopens", "it s a relief said maria lopez", "an hour a day a lot of fuel",
			"cost 75m 84m", "actual cost", "until next spring"},
		[]string{"subscribe", "weather", "most read", "cookies", "accept", "privacy", "gtag", "datalayer",
			"font", "tracking", "all rights", "nbsp", "amp", "rsquo"})
	f("news_ru.html", "ежики вернулись в городской парк новости заречья",
		[]string{"ежики вернулись в городской парк", "алексей елкин", "живет не менее пяти ежей",
			"как помочь ежику", "еще одна", "йоговые площадки"},
		[]string{"ё", "«", "»", "—", "главная", "политика", "читайте", "курсы", "права", "_tmr", "nbsp", "\u00a0"})
	f("broken.html", "old guestbook links",
		[]string{"welcome to my home page", "visitors 10234 since 1999", "thanks for stopping by",
			"unfinished bold nested italic", "stray close tags done"},
		[]string{"bgcolor", "netscape.", "never shown", "old stuff", "document", "counter"})
	f("shop.html", "acme trailrunner 2 trail shoes men s acme outdoor store",
		[]string{"acme trailrunner 2 89 99", "waterproof membrane", "forefoot", "great grip on wet rock"},
		[]string{"jackets", "leggings", "tents", "sale", "search", "add to basket", "size 10",
			"recently", "gift", "cart", "price", "vibram®"})
	f("code_pre.html", "reading a file line by line in go",
		[]string{"func countlines path string int error", "return n s err check the error the count",
			"bufio errtoolong", "go run input txt 42"},
		[]string{"blog", "comments", "span", "kw", "posted", "lt"})
	f("forum.txt", "",
		[]string{"alex chen alex example net wrote", "is w 4 too small", "broder used w 10"},
		[]string{">", "--", "_"})
}

func TestHTML(t *testing.T) {
	c := New(Options{})
	f := func(in, want string) {
		t.Helper()
		got, res := c.HTML(nil, []byte(in))
		if string(got) != want {
			t.Errorf("HTML(%q) = %q, want %q", in, got, want)
		}
		checkInvariants(t, string(got), res, DefaultMaxTokens)
	}
	f("", "")
	f("<td>a</td><td>b</td>", "a b")
	f("<p>one</p><p>two</p>", "one two")
	f("line<br>break<hr>rule", "line break rule")
	f("<b>Ex</b>ample <i>in</i>line", "example inline")
	f("super<wbr>cali", "supercali")
	f("<li>a<li>b<li>c", "a b c")
	f("R&amp;D &lt;tag&gt; caf&eacute; &#1105;&#x436; 5&nbsp;km", "r d tag café еж 5 km")
	f("<!-- hidden --><!DOCTYPE html>shown", "shown")
	f("a<script>var x = '</p>';</script>b", "a b")
	f("a<style>p{}</style>b", "a b")
	f("<nav><div>menu</div></nav>text", "text")
	f("<nav>one<nav>two</nav>still</nav>out", "out")
	f("<div><nav>menu</div>kept", "kept")                    // parent close ends the drop
	f("<nav>menu<main>body</main>", "body")                  // main starts the content
	f("<header>logo</header><nav/>after", "after")           // self-closing drop is empty
	f("<script src=x.js />hidden</script>shown", "shown")    // raw text despite "/>"
	f("text<script>never closed <p>at all", "text")          // script dropped to the end
	f("<div><script>var a = 1;</div><p>more", "more")        // unclosed script parsed as markup
	f("<title>T</title><textarea>Typed</textarea>", "typed") // title not in body
	f("<svg><title>icon</title><text>x</text></svg>ok", "ok")
	f("<select><option>One<option>Two</select>ok", "ok")
	f("<e\u0301>a", "a")                    // odd tag names are just tags
	f("cafe<b>\u0301</b>", "café")          // marks compose across inline tags
	f("<p>e</p>\u0301", "e")                // but not across blocks
	f("<plaintext><b>bold</b>", "b bold b") // plaintext is literal
}

func TestHTMLTitle(t *testing.T) {
	c := New(Options{})
	f := func(in, title, body string) {
		t.Helper()
		got, res := c.HTML(nil, []byte(in))
		if res.Title != title || string(got) != body {
			t.Errorf("HTML(%q) = %q title %q, want %q title %q", in, got, res.Title, body, title)
		}
	}
	f("<title> Hello,  &amp; World! </title>x", "hello world", "x")
	f("<title>First</title><title>Second</title>x", "first", "x")
	f("<title></title><title>Second</title>", "second", "")
	f("<nav><title>Menu</title></nav>x", "", "x")
	f("<title>Unclosed<body><p>text", "unclosed", "text")
	f("no title", "", "no title")
}

func TestHTMLDropTags(t *testing.T) {
	f := func(drop []string, in, want string) {
		t.Helper()
		got, _ := New(Options{DropTags: drop}).HTML(nil, []byte(in))
		if string(got) != want {
			t.Errorf("DropTags %q: HTML(%q) = %q, want %q", drop, in, got, want)
		}
	}
	f(nil, "<nav>n</nav><table><tr><td>t</td></tr></table>", "t")
	f([]string{}, "<nav>n</nav><script>s</script>", "n s")
	f([]string{"TABLE"}, "<nav>n</nav><table><tr><td>t</td></tr></table>", "n")
	f([]string{"my-widget"}, "a <my-widget>w<b>x</b></my-widget> b", "a b")
	f([]string{}, "<noscript><p>enable js</p></noscript>x", "x") // raw markup is never text
	// A page-level form is kept when it holds the page (ASP.NET WebForms)…
	page := strings.Repeat("word ", 45)
	f(nil, "<body><form id=aspnetForm><div><form>login</form>"+page+"</div></form>", strings.TrimSpace(page))
	f(nil, "<form><p>"+page+"</p></form>", strings.TrimSpace(page))
	// …and dropped when it is a few words of chrome, like a cookie banner.
	f(nil, "<body><p>story text</p><form>we use cookies <button>ok</button></form><p>more</p>", "story text more")
	f(nil, "<body><p>story</p><form>we use cookies", "story")
	f(nil, "<body><div><form>cookies</form></div>text", "text")
}

func TestHTMLMaxTokens(t *testing.T) {
	c := New(Options{MaxTokens: 2})
	got, res := c.HTML(nil, []byte("<title>a b c d</title><p>one</p><p>two</p><p>three</p>"))
	if string(got) != "one two" || !res.Truncated || res.Tokens != 2 || res.Title != "a b" {
		t.Fatalf("got %q %+v", got, res)
	}
}
