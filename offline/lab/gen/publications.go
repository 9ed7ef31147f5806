package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Publication is one generated bibliographic record with its label: JSON
// fields id, title, authors, abstract (may be absent) and year, in the shapes
// a real feed mixes (years as numbers, "2001", "2001-05-03" or "May 2001";
// authors as "John Smith", "Smith, John", "J. Smith", "SMITH J" or
// "Иванов И. И.").
type Publication struct {
	ID     string
	Record map[string]any // marshal it as the message value
	Origin string         // ID of the original this record copies (== ID for originals)
	// Edits names what a copy changed, e.g. "authors-reordered+title-typo";
	// "original" for originals, "same-title" for an original that reuses an
	// earlier record's title with other authors, year and abstract.
	Edits string
}

// PubSource is a title and a text to draw a publication's abstract from.
type PubSource struct{ Title, Body string }

// PubOptions configure Publications. A zero field means its default.
type PubOptions struct {
	Seed      uint64
	CopyRate  float64 // probability that a record is a near-copy of an earlier original; default 0.35
	SameTitle float64 // probability that an original reuses an earlier title; default 0.05
}

type person struct {
	given, surname string
	cyrillic       bool
}

// authorFormats render a person; every one gives the same clean.AuthorKey.
var authorFormats = []func(p person) string{
	func(p person) string { return p.given + " " + p.surname },
	func(p person) string { return p.surname + ", " + p.given },
	func(p person) string { return initial(p.given) + ". " + p.surname },
	func(p person) string { return p.surname + " " + initial(p.given) + "." },
	func(p person) string { return strings.ToUpper(p.surname) + " " + initial(p.given) },
	func(p person) string { return strings.ToLower(p.given + " " + p.surname) },
}

func initial(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r))
}

var (
	givenEN   = []string{"John", "Mary", "Anna", "Peter", "Laura", "David", "Susan", "Michael", "Karen", "Thomas", "Emily", "Robert", "Olga", "Daniel", "Sophie", "Martin", "Helen", "George", "Alice", "Victor"}
	surnameEN = []string{"Smith", "Johnson", "Brown", "Taylor", "Wilson", "Davies", "Evans", "Thomas", "Roberts", "Walker", "Wright", "Robinson", "Thompson", "White", "Hughes", "Edwards", "Green", "Hall", "Wood", "Harris", "Lewis", "Martin", "Jackson", "Clarke", "Clark", "Turner", "Hill", "Scott", "Cooper", "Morris", "Müller", "Lefèvre", "García", "Nowak", "Novák"}
	givenRU   = []string{"Иван", "Пётр", "Анна", "Мария", "Сергей", "Ольга", "Дмитрий", "Елена", "Алексей", "Наталья", "Юрий", "Татьяна"}
	surnameRU = []string{"Иванов", "Петров", "Сидоров", "Смирнов", "Кузнецов", "Попов", "Соколов", "Лебедев", "Козлов", "Новиков", "Морозов", "Волков", "Зайцев", "Фёдоров", "Яковлев", "Ильин"}
	months    = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// pubGen holds the state of one Publications run.
type pubGen struct {
	r      *rand.Rand
	o      PubOptions
	people []person
	origs  []*pubOrig
	out    []Publication
}

// pubOrig is an original's content, from which copies are derived.
type pubOrig struct {
	id       string
	title    string
	authors  []person
	abstract string
	year     int
}

// Publications turns sources into labelled publication records: each source
// becomes an original (title, 1–4 authors from this package's name lists,
// a 30–80-word abstract from the start of the body, a year); after each
// original, with probability CopyRate, a near-copy of a random earlier
// original follows, changed by one to three of: authors reordered, authors
// written another way (initials, "Surname, Given", case), a typo in the
// title, the abstract missing, the year written another way. Sources with
// an empty title or fewer than 20 words are skipped. Deterministic for a seed.
func Publications(sources []PubSource, o PubOptions) []Publication {
	if o.CopyRate == 0 {
		o.CopyRate = 0.35
	}
	if o.SameTitle == 0 {
		o.SameTitle = 0.05
	}
	g := &pubGen{r: rand.New(rand.NewPCG(o.Seed, 0x7075626c)), o: o, people: people()}
	for _, s := range sources {
		words := strings.Fields(s.Body)
		if strings.TrimSpace(s.Title) == "" || len(words) < 20 {
			continue
		}
		g.original(s.Title, words)
		for g.r.Float64() < o.CopyRate {
			g.copyOf(g.origs[g.r.IntN(len(g.origs))])
		}
	}
	return g.out
}

func people() []person {
	var ps []person
	for _, s := range surnameEN {
		for _, gv := range givenEN {
			ps = append(ps, person{given: gv, surname: s})
		}
	}
	for _, s := range surnameRU {
		for _, gv := range givenRU {
			ps = append(ps, person{given: gv, surname: s, cyrillic: true})
		}
	}
	return ps
}

func (g *pubGen) original(title string, words []string) {
	r := g.r
	o := &pubOrig{id: fmt.Sprintf("pub-%d", len(g.out)), title: title, year: 1980 + r.IntN(41)}
	edits := "original"
	if len(g.origs) > 0 && r.Float64() < g.o.SameTitle {
		o.title, edits = g.origs[r.IntN(len(g.origs))].title, "same-title"
	}
	o.authors = g.authors(1 + r.IntN(4))
	o.abstract = strings.Join(words[:min(len(words), 30+r.IntN(51))], " ")
	g.origs = append(g.origs, o)
	rec := map[string]any{"id": o.id, "title": o.title, "abstract": o.abstract,
		"authors": formatAuthors(o.authors, r.IntN(len(authorFormats))), "year": o.year}
	g.out = append(g.out, Publication{ID: o.id, Record: rec, Origin: o.id, Edits: edits})
}

// authors draws n distinct people.
func (g *pubGen) authors(n int) []person {
	var as []person
	for len(as) < n {
		p := g.people[g.r.IntN(len(g.people))]
		if !hasSurname(as, p.surname) {
			as = append(as, p)
		}
	}
	return as
}

// hasSurname keeps one author per surname in a record, so that two authors
// never share a key.
func hasSurname(as []person, s string) bool {
	for _, a := range as {
		if a.surname == s {
			return true
		}
	}
	return false
}

func formatAuthors(as []person, format int) []any {
	out := make([]any, len(as))
	for i, a := range as {
		out[i] = authorFormats[format](a)
	}
	return out
}

// copy edits, applied in this order when chosen.
var pubEdits = []string{"authors-reordered", "authors-reformatted", "title-typo", "abstract-missing", "year-reformatted"}

func (g *pubGen) copyOf(o *pubOrig) {
	r := g.r
	chosen := r.Perm(len(pubEdits))[:1+r.IntN(3)]
	has := func(e string) bool {
		for _, i := range chosen {
			if pubEdits[i] == e {
				return true
			}
		}
		return false
	}
	id := fmt.Sprintf("pub-%d", len(g.out))
	rec := map[string]any{"id": id, "title": o.title, "abstract": o.abstract, "year": o.year}
	authors := append([]person(nil), o.authors...)
	if has("authors-reordered") && len(authors) > 1 {
		r.Shuffle(len(authors), func(i, j int) { authors[i], authors[j] = authors[j], authors[i] })
	}
	rec["authors"] = formatAuthors(authors, r.IntN(len(authorFormats)))
	if has("title-typo") {
		rec["title"] = typo(r, o.title)
	}
	if has("abstract-missing") {
		switch r.IntN(3) {
		case 0:
			delete(rec, "abstract")
		case 1:
			rec["abstract"] = nil
		default:
			rec["abstract"] = ""
		}
	}
	if has("year-reformatted") {
		rec["year"] = yearFormat(r, o.year)
	}
	var names []string
	for _, i := range chosen {
		names = append(names, pubEdits[i])
	}
	g.out = append(g.out, Publication{ID: id, Record: rec, Origin: o.id, Edits: strings.Join(names, "+")})
}

// typo swaps two adjacent letters of one word of four or more letters, or
// drops a letter of it.
func typo(r *rand.Rand, title string) string {
	words := strings.Fields(title)
	var long []int
	for i, w := range words {
		if utf8.RuneCountInString(w) >= 4 {
			long = append(long, i)
		}
	}
	if len(long) == 0 {
		return title + "s"
	}
	i := long[r.IntN(len(long))]
	w := []rune(words[i])
	j := 1 + r.IntN(len(w)-2)
	if r.IntN(2) == 0 {
		w[j], w[j+1] = w[j+1], w[j]
	} else {
		w = append(w[:j], w[j+1:]...)
	}
	words[i] = string(w)
	return strings.Join(words, " ")
}

func yearFormat(r *rand.Rand, y int) any {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprint(y)
	case 1:
		return fmt.Sprintf("%d-%02d-%02d", y, 1+r.IntN(12), 1+r.IntN(28))
	}
	return months[r.IntN(12)] + " " + fmt.Sprint(y)
}
