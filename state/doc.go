// Package state keeps dedupstream's documents, LSH band postings and content hashes in a Badger database.
//
// A *Store is safe for concurrent use: lookups (Replayed, Exact, Candidates, Get,
// Scan, Stats) may run on any number of goroutines, and Put and SetCluster are
// serialised by an internal writer lock. It nevertheless expects a single writer
// goroutine that calls Reserve and then Put in ascending Seq order. The replay
// contract rests on that order: Exact and Candidates answer "documents with
// Seq < before", and that answer only stays the same across a replay if no document
// with a smaller Seq is stored after a lookup with a larger before has run. Two
// goroutines racing Reserve and Put break that silently, not with an error.
// Reserve is lock-free and may be called from any goroutine.
//
// # Keys
//
// One database, one-byte prefixes, big-endian integers so that prefix scans come
// out in Seq order:
//
//	'm' name                          → metadata: "format" (uint64 layout version),
//	                                    "sketch" (sketch version string), "seq"
//	                                    (next sequence number, uint64), "docs"
//	                                    (records written, uint64), "applied" (a
//	                                    shard's next probe-log offset, uint64;
//	                                    written by Apply only)
//	'd' seq(8)                        → document record (see below)
//	'i' uvarint(len(rk)) rk hash(8)   → seq: replay lookup by replay key and
//	                                    content hash; rk is Doc.Source, or Doc.ID
//	                                    when Source is empty
//	'H' hash(8)                       → seq: head of a content hash
//	'h' hash(8) seq(8)                → empty: its other postings
//	'B' band(1) bandKey(8)            → seq: head of a band bucket
//	'b' band(1) bandKey(8) seq(8)     → empty: its other postings
//
// A seq in a key is big-endian in 8 bytes, so postings sort by it. A seq value
// (the heads and replay keys) is a uvarint, 3 bytes up to 2,097,151, and 8
// bytes big-endian only from 2^49; states written before issue 11 (format 1)
// hold the 8-byte form in every value, and both are read.
//
// With Options.SetKeys (sketch methods whose keys are a set, not one per band:
// bottomk, modm, full) every key is a bucket under the pseudo-band SetBand
// (255), so a lookup finds the documents sharing any key with it. One state
// directory holds one sketch method (its version is checked at Open), so set
// keys never meet band keys of band 255.
//
// The replay key in an 'i' key is length-prefixed, so ids and sources may hold any
// bytes (0x00 included) and no two (key, hash) pairs share a key.
//
// A group (the documents with one content hash, or one band bucket) is its head
// plus its other postings. The head holds the group's smallest seq and is written
// by the first document of the group instead of a posting, so it costs no extra
// key. Most lookups are for groups that do not exist; reading the head is a point
// lookup that the key filter (below) usually answers without Badger, where a
// prefix seek would visit every level. Only a head below before leads to a seek.
// Put keeps two invariants, relying on being the only writer: the head is the
// smallest seq of its group (a smaller seq arriving late takes over the head and
// the old one becomes a posting), and the head expires no earlier than any
// posting of its group (with a TTL it is rewritten, with up to headSlack extra
// life, when a posting would outlive it). Readers thus never miss a posting, and
// a stale head costs them a wasted seek. Posting and head writes are blind or
// guarded by a read of the head only; no list is ever read, modified and written.
//
// # Key filter
//
// Most point reads miss: a unique document reads its replay key, its hash head
// and one head per band, and Put reads the heads again, and none of them exist.
// Badger answers a miss by walking each memtable's skiplist before its tables'
// bloom filters, so the Store keeps its own blocked Bloom filter, in memory, over
// every 'i', 'H' and 'B' key, and skips Badger when the filter says a key was
// never written. Correctness rests on the filter never forgetting a key; a false
// positive (about 1% at capacity, 10 bits per key) only costs the read.
//
// Open builds the filter by scanning those keys (keys only), sized for about
// twice the keys found and at least Options.FilterKeys. A database of more than
// ~4M keys (~300k documents) gets its filter in the background, the way a
// growing filter is rebuilt (below): until then a stand-in says "maybe" to
// every key, so lookups are right and go to Badger. A write (Put, Stage,
// Publish) adds a key when it queues it, before the transaction commits, so the
// filter already holds every key a reader's snapshot or the writer's own
// transaction can see; a write that fails leaves false positives. Keys are never
// removed: expired keys stay until the filter is rebuilt. Once more keys were
// added than it was sized for, the next write starts a rebuild at twice the
// size in the background: it scans a snapshot taken with the writer lock held
// and no write in flight, while later writes add their keys to the old filter
// (which readers go on using) and to a list; the list is added to the new
// filter, and the new filter swapped in, with the writer lock held. The writer
// never waits for the scan, which took 0.3 s at 88k documents and 5.6 s at 700k
// when it ran under the lock. The rebuild leaves expired keys out and shrinks
// the filter if few keys are left.
// Keys written to the database behind the Store's back are not in the filter
// until the next Open.
//
// # Records
//
// A document record is a version byte followed by fixed fields, then
// uvarints and length-prefixed strings; the sketch is the remainder of the
// value. Put, Stage and Apply write version 3:
//
//	[0]      version (3)
//	[1]      verdict
//	[2:10]   time, unix nanoseconds (math.MinInt64 for the zero time)
//	[10:18]  content hash
//	[18:22]  similarity, IEEE 754 bits
//	[22]     flags: 1 = the record names its original's place in the global
//	         order (the shards of the sharded index: Doc.OfTime, Doc.OfSource)
//	[23:31]  with flag 1 only: the original's time
//	then     uvarint of, uvarint cluster, uvarint len + id, uvarint len + url,
//	         uvarint len + of id, uvarint len + source, with flag 1 uvarint
//	         len + of source, then the sketch (rest of the value)
//
// Builds before issue 11 wrote versions 1 and 2, which are still read: version
// 1 holds of at [18:26], cluster at [26:34] and similarity at [34:38], fixed
// width, and its strings from [38:]; version 2 (flag 1's content) adds the
// original's time at [38:46] and the fifth string. SetCluster keeps such a
// record in its version, rewriting the cluster in place, and decodes a
// version-3 record and encodes it again.
//
// The band keys are not stored in the record: they exist only as postings, and the
// sketch they were derived from is stored, so they can be recomputed. Docs returned
// by the store therefore have Bands == nil.
//
// # Crash safety
//
// Apply (a shard of the sharded index) is Put plus the log position: the
// "applied" offset goes into the transaction that stores the last document, so
// a crash leaves a prefix of the documents and the old position, and re-reading
// the log from there finds the stored prefix as replays.
//
// Put writes each document's record, replay key, hash posting and band postings in
// one Badger transaction, and a transaction is atomic across a crash. A batch too
// big for one transaction is split between documents, never inside one, and every
// transaction also carries the next sequence number. A crash in the middle of Put
// therefore leaves a prefix of the batch fully stored and the rest absent; the
// documents Put in the failed call are not marked as stored, so the caller can
// Put them again (a re-Put of the same seq writes the same keys). Readers still
// skip postings whose record is missing: a record may expire between a reader's
// posting scan and its record read, and heads outlive their records under a TTL.
package state
