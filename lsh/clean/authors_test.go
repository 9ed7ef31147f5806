package clean

import "testing"

func TestAuthorKey(t *testing.T) {
	c := New(Options{})
	f := func(name, want string) {
		t.Helper()
		if got := string(c.AuthorKey(nil, []byte(name))); got != want {
			t.Errorf("AuthorKey(%q) = %q, want %q", name, got, want)
		}
	}
	// One person, many spellings.
	f("Smith, John", "smith j")
	f("J. Smith", "smith j")
	f("john smith", "smith j")
	f("John R. Smith", "smith j")
	f("SMITH J", "smith j")
	f("Smith, J. R.", "smith j")
	f("  Smith ,John  ", "smith j")
	// Latin diacritics go, case folds.
	f("José Müller", "muller j")
	f("Müller, José", "muller j")
	f("Ångström, Anders", "angstrom a")
	// Cyrillic: ё folds to е, й keeps its mark, initials in any position.
	f("Иванов И. И.", "иванов и")
	f("И.И. Иванов", "иванов и")
	f("Иванов, Иван Иванович", "иванов и")
	f("Иван Иванович Иванов", "иванов и")
	f("Фёдоров Ф.", "федоров ф")
	f("Йорк, Й.", "йорк й")
	f("Андрей Зайцев", "зайцев а")
	// No transliteration: Latin and Cyrillic spellings stay apart.
	f("Ivanov, I.", "ivanov i")
	// Particles: the last word before the comma, or the last full word.
	f("van der Berg, Jan", "berg j")
	f("J. van der Berg", "berg j")
	// Surname only, initials only, nothing.
	f("Plato", "plato")
	f("J. R.", "r j")
	f("", "")
	f(" , ", "")
	f("...", "")
}

func TestAuthorKeyCyrillicMarksKept(t *testing.T) {
	c := New(Options{})
	if a, b := string(c.AuthorKey(nil, []byte("Йода"))), string(c.AuthorKey(nil, []byte("Иода"))); a == b {
		t.Errorf("й and и gave the same key %q", a)
	}
}

func TestYear(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		got, ok := Year(in)
		if got != want || ok != (want != "") {
			t.Errorf("Year(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	f("2001", "2001")
	f("2001-05-03", "2001")
	f("May 2001", "2001")
	f("(1999)", "1999")
	f("20010503", "")
	f("99", "")
	f("vol 12, 2003", "2003")
	f("", "")
}
