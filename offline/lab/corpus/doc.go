// Package corpus reads real document collections (Reuters-21578 SGML, 20 Newsgroups,
// directories of text or HTML files, JSONL) as a stream of documents with stable ids.
//
// Every reader is streaming: it hands one Doc at a time to a callback and holds at most
// one document (or one archive member) in memory. Doc text is always valid UTF-8: input
// that is not valid UTF-8 is decoded as Windows-1252/Latin-1, and control characters
// other than tab and newline are dropped. The functions keep no shared state and are
// safe for concurrent use; the callback is called from the calling goroutine only.
//
// Ids are stable across runs and machines because they are built from names inside the
// collection, never from absolute paths or read order:
//
//	reuters/reut2-003.sgm/NEWID=3021
//	20news/train/sci.med/59284
//	dir/sub/page.html
//	jsonl/<id field>   or   jsonl/#<line number> when the record has no id
package corpus
