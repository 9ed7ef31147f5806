package gen

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"unicode"
)

var (
	tagRE    = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*>`)
	entityRE = regexp.MustCompile(`^&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);`)
)

// articleText returns the unescaped title and paragraphs inside the page's <article>:
// what a cleaner keeps.
func articleText(page string) []string {
	_, rest, _ := strings.Cut(page, "<article")
	_, rest, _ = strings.Cut(rest, ">")
	body, _, _ := strings.Cut(rest, "</article>")
	var out []string
	for _, tag := range []string{"h1", "p"} {
		open, end := "<"+tag+">", "</"+tag+">"
		for rest := body; ; {
			_, after, ok := strings.Cut(rest, open)
			if !ok {
				break
			}
			text, after, _ := strings.Cut(after, end)
			out = append(out, html.UnescapeString(text))
			rest = after
		}
	}
	return out
}

// tokens lower-cases s and splits it into words of letters and digits.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// jaccard5 is the word-5-shingle resemblance of two texts.
func jaccard5(a, b []string) float64 {
	return jaccardSets(shingleText(a), shingleText(b))
}

// shingleText is the set of word 5-shingles of the joined texts.
func shingleText(texts []string) map[string]struct{} {
	return shingles(tokens(strings.Join(texts, "\n")))
}

func jaccardSets(sa, sb map[string]struct{}) float64 {
	inter := 0
	for s := range sa {
		if _, ok := sb[s]; ok {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

func shingles(ws []string) map[string]struct{} {
	set := map[string]struct{}{}
	for i := 0; i+5 <= len(ws); i++ {
		set[strings.Join(ws[i:i+5], " ")] = struct{}{}
	}
	return set
}

// wordDistance is the Levenshtein distance between two word sequences.
func wordDistance(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkHTML does the structure checks a crawler's parser would trip over: balanced,
// properly nested tags (void elements aside), raw text only in <script> and <style>,
// every '&' starting an entity, no template placeholder left, and one <article> next
// to the boilerplate elements.
func checkHTML(page string) error {
	if strings.Contains(page, "{{") || strings.Contains(page, "}}") {
		return fmt.Errorf("placeholder left")
	}
	for _, el := range []string{"<html", "<head>", "<title>", "<body", "<nav", "<header", "<footer", "<aside", "<script", "<form"} {
		if !strings.Contains(page, el) {
			return fmt.Errorf("no %s element", el)
		}
	}
	if strings.Count(page, "<article") != 1 || len(articleText(page)) < 1 {
		return fmt.Errorf("want one <article> with <h1> and <p> text")
	}
	return checkTags(page)
}

func checkTags(page string) error {
	void := map[string]bool{"meta": true, "link": true, "input": true, "br": true, "img": true, "hr": true}
	var stack []string
	text := page
	if strings.HasPrefix(strings.ToLower(text), "<!doctype html>") {
		text = text[len("<!doctype html>"):]
	}
	for len(text) > 0 {
		loc := tagRE.FindStringSubmatchIndex(text)
		end := len(text)
		if loc != nil {
			end = loc[0]
		}
		if err := checkText(text[:end]); err != nil {
			return err
		}
		if loc == nil {
			break
		}
		closing, name := text[loc[2]:loc[3]] == "/", strings.ToLower(text[loc[4]:loc[5]])
		text = text[loc[1]:]
		switch {
		case void[name]:
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return fmt.Errorf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		case name == "script" || name == "style":
			i := strings.Index(text, "</"+name+">")
			if i < 0 || strings.Contains(text[:i], "</") {
				return fmt.Errorf("bad <%s> content", name)
			}
			text = text[i+len(name)+3:]
		default:
			stack = append(stack, name)
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed %v", stack)
	}
	return nil
}

// checkText rejects markup characters in text between tags.
func checkText(s string) error {
	if strings.ContainsAny(s, "<>") {
		return fmt.Errorf("raw < or > in text %.60q", s)
	}
	for i := strings.IndexByte(s, '&'); i >= 0; i = strings.IndexByte(s, '&') {
		if !entityRE.MatchString(s[i:]) {
			return fmt.Errorf("bare & in text %.60q", s[i:])
		}
		s = s[i+1:]
	}
	return nil
}
