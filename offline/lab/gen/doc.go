// Package gen makes crawled-looking HTML pages and labelled near-duplicates of them,
// deterministically from a seed.
//
// A Generator is not safe for concurrent use; give each goroutine its own (two
// generators with the same Options emit the same pages). Everything is built from this
// package's own word lists and site templates, so the output carries no third-party text.
//
// What each Kind does to the word-5-shingle Jaccard resemblance J of the main text
// (the <article>; the rest of a page is boilerplate a cleaner should drop — menus in
// <nav>, mastheads in <header>, ads and related links in <aside>, forms, <footer>,
// <script>, <style>):
//
//   - Original: J with any other original ≈ 0 (words drawn uniformly from a few hundred).
//   - Exact:    the original's HTML byte for byte at another URL; J = 1 and even the
//     boilerplate matches.
//   - Mirror:   the same title and paragraphs in another site's template; J = 1 after
//     cleaning, but the raw HTML differs a lot.
//   - Reordered: the paragraphs shuffled; only shingles that span a paragraph boundary
//     change, so with p paragraphs of ~60 words J ≈ 1 − 8(p−1)/(n+4(p−1)) ≈ 0.8–0.9.
//   - Truncated: the first 70–90% of the words; J ≈ kept fraction (0.7–0.9), and the
//     copy's containment in the original is 1.
//   - Edited:   round(EditRate·n) word edits (substitute 70%, delete 15%, insert 15%) at
//     distinct positions; each touches up to 5 shingles, so J ≈ (1−5r)/(1+5r), 0.74
//     at the default r = 0.03, 0.9 at r = 0.01. Below a 0.8 threshold at the default
//     rate: Edited copies are the hard cases.
//
// Four more kinds are made only when Options.Kinds asks for them (AllKinds; the
// default, DefaultKinds, keeps a seed's pages as the first generator made them):
//
//   - Quoted:   a new article in the original's language, twice as many paragraphs
//     long, that quotes the whole original (title and every paragraph, in a
//     <blockquote>) between two of its paragraphs. The original's containment in the
//     copy is 1 and the copy's in the original ≈ 1/3, as is J: containment, not
//     resemblance. (The stream's contained verdict is for the other order, a small
//     page after a larger one that holds it.)
//   - Noisy:    the words of the original with the case of some changed and the
//     punctuation and spacing between some changed; J = 1 once case is folded and
//     punctuation separates words, as the cleaner does.
//   - Plaintext: the title and paragraphs as plain text (blank lines between them),
//     not HTML: a page seen both as a web page and as text; J = 1 after cleaning.
//   - Excerpt:  the original's title over a contiguous third of its paragraphs (at
//     least one): a small page arriving after a larger one that holds it — a
//     syndicated excerpt, a quoted post sent on alone. Its containment in the original
//     is 1 less the few shingles that span the title and its first paragraph (≈ 0.95–1),
//     its resemblance about its share of the original (≈ 1/3): the order the stream's
//     contained verdict is for, which Quoted is not.
package gen
