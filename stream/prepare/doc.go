// Package prepare turns an input message into a document the index can take:
// decode (JSON record or raw page, character encoding, record-mode fields),
// clean, content hash, sketch and index keys — or the InputError, with its
// stage and class, that dead-letters the message. It is the one way a page is
// prepared: the pipeline keeps a set of Workers for a run and hands each
// record to them as it is fetched (a Batch's Add; a sharded front's as its
// records wait for the global order), and so do bench and a sharded
// instance's front, which the pipeline feeds; compare reads files with it
// (Preparer.PrepareValue), and eval cleans corpora with its rules
// (CleanText, RawPage). RawPage is the one place a raw page is judged HTML
// or text. A Preparer is immutable and safe for concurrent use; each
// goroutine brings its own Scratch.
package prepare
