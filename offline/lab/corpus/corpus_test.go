package corpus

import (
	"crypto/sha256"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusPath finds a real corpus in ../shared/corpora beside the repository,
// or skips the test.
func corpusPath(t testing.TB, name string) string {
	t.Helper()
	p, err := Locate("corpora", name)
	if err != nil {
		t.Skip(err)
	}
	return p
}

// corpusSummary is what a full read of a collection is checked against.
type corpusSummary struct {
	docs  map[string]Doc
	ids   []string
	split map[string]int // documents per first id component after the kind
	hash  [sha256.Size]byte
}

// firstReads holds the first full read of each collection (by path), so that
// TestReadStable compares a second read with the one TestReuters21578 or
// Test20Newsgroups already made rather than reading each collection twice more.
var firstReads = map[string]corpusSummary{}

// readAll reads a whole collection with Read and checks the properties every reader
// promises: unique ids, valid UTF-8 and no control characters in any field.
func readAll(t *testing.T, path string) corpusSummary {
	t.Helper()
	s := readOnce(t, path)
	if _, ok := firstReads[path]; !ok {
		firstReads[path] = s
	}
	return s
}

// firstRead returns the package's first full read of the collection at path,
// reading it now if no test has.
func firstRead(t *testing.T, path string) corpusSummary {
	t.Helper()
	if s, ok := firstReads[path]; ok {
		return s
	}
	return readAll(t, path)
}

func readOnce(t *testing.T, path string) corpusSummary {
	t.Helper()
	s := corpusSummary{docs: map[string]Doc{}, split: map[string]int{}}
	h := sha256.New()
	err := Read(path, 0, func(d Doc) error {
		if _, dup := s.docs[d.ID]; dup {
			t.Errorf("duplicate id %s", d.ID)
		}
		for _, f := range []string{d.ID, d.URL, d.Title, d.Body, d.Group} {
			if !utf8.ValidString(f) || strings.IndexFunc(f, isJunk) >= 0 {
				t.Errorf("%s: field not clean UTF-8: %.60q", d.ID, f)
			}
		}
		s.docs[d.ID] = d
		s.ids = append(s.ids, d.ID)
		s.split[strings.Split(d.ID, "/")[1]]++
		for _, f := range []string{d.ID, d.URL, d.Title, d.Body, d.Group} {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	copy(s.hash[:], h.Sum(nil))
	return s
}

func TestReuters21578(t *testing.T) {
	p := corpusPath(t, "reuters21578.tar.gz")
	s := readAll(t, p)
	if len(s.docs) != 21578 {
		t.Fatalf("read %d documents, want 21578", len(s.docs))
	}
	if len(s.split) != 22 || s.split["reut2-021.sgm"] != 578 || s.split["reut2-000.sgm"] != 1000 {
		t.Errorf("documents per file: %v", s.split)
	}
	f := func(id, title, bodyPrefix, group string) {
		t.Helper()
		d, ok := s.docs[id]
		if !ok {
			t.Fatalf("no document %s", id)
		}
		if d.Title != title || !strings.HasPrefix(d.Body, bodyPrefix) || d.Group != group {
			t.Errorf("%s = title %q, group %q, body %.80q", id, d.Title, d.Group, d.Body)
		}
	}
	f("reuters/reut2-000.sgm/NEWID=1", "BAHIA COCOA REVIEW", "Showers continued throughout the week in\nthe Bahia cocoa zone", "cocoa")
	f("reuters/reut2-003.sgm/NEWID=3021", "PLESSEY TO SELL TELEPHONE SYSTEM TO COLOMBIA", "Plessey Co Plc <PLY.L> said", "")
	f("reuters/reut2-000.sgm/NEWID=2", "STANDARD OIL <SRD> TO FORM FINANCIAL UNIT", "Standard Oil Co and BP North America", "")
	// A BRIEF: no BODY, so the TEXT (headline included) is the body.
	f("reuters/reut2-000.sgm/NEWID=30", "ASSETS OF MONEY MARKET MUTUAL FUNDS ROSE 720.4 MLN DLRS IN LATEST WEEK",
		"******ASSETS OF MONEY MARKET MUTUAL FUNDS ROSE 720.4 MLN DLRS IN LATEST WEEK\nBlah blah blah.", "money-supply")
	// An UNPROC: no TITLE, no BODY.
	f("reuters/reut2-000.sgm/NEWID=101", "", "FEDERAL RESERVE MONEY SUPPLY REPORT - FEB 26\n    One Week Ended Feb 16", "money-supply")
	// The one byte in the collection that is not UTF-8 (0xFC, Latin-1 'ü').
	if d := s.docs["reuters/reut2-017.sgm/NEWID=17980"]; !strings.Contains(d.Body, "growth.üside measures") {
		t.Errorf("NEWID=17980 body lacks the decoded Latin-1 byte: %.200q", d.Body)
	}
	for id, d := range s.docs {
		if strings.HasSuffix(d.Body, "\x03") || strings.Contains(d.Body, "&#") || strings.Contains(d.Body, "&lt;") {
			t.Fatalf("%s: undecoded markup in body %.200q", id, d.Body)
		}
	}
}

func Test20Newsgroups(t *testing.T) {
	p := corpusPath(t, "20news-bydate.tar.gz")
	s := readAll(t, p)
	if len(s.docs) != 18846 || s.split["train"] != 11314 || s.split["test"] != 7532 {
		t.Fatalf("read %d documents (%v), want 18846 (train 11314, test 7532)", len(s.docs), s.split)
	}
	d := s.docs["20news/test/sci.med/59284"]
	if d.Title != "HICN611 Medical News Part 2/4" || d.Group != "sci.med" || !strings.HasPrefix(d.Body, "------------- cut here -----------------\n\n\n\n\n\nHICNet Medical Newsletter") {
		t.Errorf("test/sci.med/59284: title %q, group %q, body %.60q", d.Title, d.Group, d.Body)
	}
	// Some bodies do start with a header-like line: forwarded messages, FAQ
	// "Archive-name:" lines, ">From:" quotes (282 of 18,846). Unsplit headers would make
	// it nearly all of them.
	headed := 0
	for _, d := range s.docs {
		first, _, _ := strings.Cut(d.Body, "\n")
		if isHeaderLine(first) && strings.Contains(first, ": ") {
			headed++
		}
	}
	if headed > len(s.docs)*3/100 {
		t.Errorf("%d bodies start with a header line", headed)
	}
	groups := map[string]bool{}
	for _, d := range s.docs {
		groups[strings.Split(d.ID, "/")[2]] = true
	}
	if len(groups) != 20 {
		t.Errorf("%d groups, want 20", len(groups))
	}
}

// TestReadStable: two full reads of each collection give the same documents
// in the same order; the first is the read TestReuters21578 or
// Test20Newsgroups made, where they ran.
func TestReadStable(t *testing.T) {
	if testing.Short() {
		t.Skip("reads both corpora twice")
	}
	for _, name := range []string{"reuters21578.tar.gz", "20news-bydate.tar.gz"} {
		p := corpusPath(t, name)
		a, b := firstRead(t, p), readOnce(t, p)
		if a.hash != b.hash || strings.Join(a.ids, "\n") != strings.Join(b.ids, "\n") {
			t.Errorf("%s: two reads differ", name)
		}
	}
}

func TestReadLimit(t *testing.T) {
	p := corpusPath(t, "20news-bydate.tar.gz")
	n := 0
	if err := Read(p, 25, func(Doc) error { n++; return nil }); err != nil || n != 25 {
		t.Fatalf("Read with limit 25: %d documents, err %v", n, err)
	}
}
