// Package clean turns a crawled page (HTML or plain text, English or Russian)
// into normalised text: lower-case words separated by single spaces.
//
// A [Cleaner] is safe for concurrent use by multiple goroutines; it keeps its
// scratch buffers in a pool, so steady-state cleaning allocates little.
//
// Stop-word removal and Snowball stemming of normalised text, by each word's
// script ([Langs], [AppendFilteredWords]), live here too; lsh applies them
// when a Shingling asks for them.
//
// # Output contract
//
// Words are written to the caller's buffer separated by exactly one ASCII
// space, with no leading or trailing space, so that a window of w consecutive
// words is one contiguous byte span. Nothing else separates words.
//
// # Normalisation
//
//   - Unicode NFKC, so "ﬁ" becomes "fi" and full-width "１２" becomes "12".
//   - Lower-casing with unicode.ToLower (simple, locale-free mappings): "ẞ"
//     becomes "ß" and "ß" stays "ß" (it is not folded to "ss"); Turkish "İ"
//     becomes "i", "I" becomes "i" and dotless "ı" stays "ı".
//   - "ё" and "Ё" become "е". Combining marks are never stripped: "й" stays "й".
//   - A word is a run of letters (unicode.IsLetter), decimal digits
//     (unicode.IsDigit) and combining marks that follow one of those.
//     Everything else separates words: spaces, punctuation, symbols, control
//     characters, NUL and invalid UTF-8 bytes. Apostrophes and hyphens are
//     separators too, so "don't" is "don t" and "Wi-Fi" is "wi fi".
//   - Invisible format characters that sit inside words (soft hyphen U+00AD,
//     ZWNJ U+200C, ZWJ U+200D, word joiner U+2060, BOM U+FEFF) are removed
//     and do not split the word.
//
// The normalisation is idempotent: cleaning the output again with
// [Cleaner.Text] returns it unchanged.
//
// # HTML
//
// [Cleaner.HTML] streams the page through the golang.org/x/net/html
// tokenizer, so it works in linear time without recursion however deeply the
// markup nests.
//
//   - The whole subtree of each element named in Options.DropTags (menus,
//     scripts, footers and so on) is skipped. A skipped element ends at its
//     end tag, when an enclosing element closes, at a <main> or <body> start
//     tag, or at the end of the input.
//   - A <form> whose parent is <body> or <html> is kept even when "form" is
//     in DropTags: ASP.NET WebForms pages wrap all their content in one.
//   - The content of iframe, noembed, noframes and noscript, which the
//     tokenizer returns as unparsed markup, is always skipped.
//   - A raw-text element (<script>, <style>, <title>, <textarea>...) with no
//     end tag anywhere after it is parsed as ordinary markup, so it cannot
//     swallow the rest of the page.
//   - Block-level elements (p, div, li, td, br, h1 and so on) separate words;
//     inline ones (b, span, a) do not, so "<b>Ex</b>ample" is one word.
//   - The first non-empty <title> goes to Result.Title, not to the body text.
//     Comments and the doctype are ignored; character references are decoded
//     by the tokenizer.
package clean
