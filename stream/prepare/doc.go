// Package prepare turns an input message into a document the index can take:
// decode (JSON record or raw page, character encoding, record-mode fields),
// clean, content hash, sketch and index keys — or the InputError, with its
// stage and class, that dead-letters the message. It is the one way a page is
// prepared: the pipeline keeps a set of Workers for a run and hands each
// record to them as it is fetched (a Batch's Add; in sharded mode as it
// enters the reorder buffer, Submit); compare reads files with it
// (Preparer.PrepareValue), and eval cleans corpora with its rules
// (CleanText, RawPage). RawPage is the one place a raw page is judged HTML
// or text. A Preparer is immutable and safe for concurrent use; each
// goroutine brings its own Scratch.
package prepare
