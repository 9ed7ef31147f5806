// Package state keeps dedupstream's documents in a Badger database and their LSH band, content-hash and replay postings in in-memory indexes rebuilt from it at open.
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
//	'P' n(8)                          → marker n: the documents one
//	                                    transaction wrote, each with its
//	                                    index keys (below)
//	'i' uvarint(len(rk)) rk hash(8)   → formats 1 to 4's replay key: seq;
//	                                    read, no longer written
//	'p' seq(8)                        → format 3's published marker of one
//	                                    document: its index keys, 8 bytes
//	                                    each; read, no longer written
//
// A seq value (format 1 to 4's replay keys) is a uvarint, 3 bytes up to
// 2,097,151, and 8 bytes big-endian only from 2^49; format 1 states hold the
// 8-byte form in every value, and both are read.
//
// # Postings
//
// The postings — which documents share a content hash, and which share each
// LSH band bucket — are kept in memory, in a postings.Index, not as Badger
// keys. A document's place in a group is a posting under the group's index
// key: the hash of 'H' hash(8) for its content hash (unless
// Options.NoExactIndex), and of 'B' band(1) bandKey(8) for each band bucket.
// Its replay posting, in a second postings.Index, is its seq under the hash
// of 'i' uvarint(len(rk)) rk hash(8), where rk, its replay key, is
// Doc.Source, or Doc.ID when Source is empty: the key formats 1 to 4 stored
// (length-prefixed, so ids and sources may hold any bytes and no two (rk,
// hash) pairs share it). Replayed looks it up and reads the records it
// leads to, newest first, for the first that holds this replay key and
// content hash (the index keeps fingerprints; see below); a Put of the pair
// again adds a larger seq, so the last Put wins (if one Put stores the same
// pair under two seqs, the larger wins). The replay postings
// are in an index of their own so that a lookup of a band bucket or content
// hash can never find a document that was only staged.
//
// With Options.SetKeys (sketch methods whose keys are a set, not one per
// band: bottomk, modm, full) every key is a bucket under the pseudo-band
// SetBand (255), so a lookup finds the documents sharing any key with it.
// One state directory holds one sketch method (its version is checked at
// Open), so set keys never meet band keys of band 255.
//
// On disk, each transaction that stages or publishes documents writes one
// marker, which lists them: per document published, uvarint seq, uvarint
// count, then its index keys, 8 bytes each (about 11 with the default
// sketch); per document staged, uvarint seq, a 0 count, then its replay
// index key (a Put writes both). Open rebuilds the indexes from the
// markers before it returns. Markers are
// numbered in the order they are written (Open continues after the largest
// number it finds), so no marker overwrites another, and a batch's marker
// is large enough to go to the value log (see Records): the LSM tree and
// its memtables hold a 12-byte pointer for a batch instead of a key and
// ~90 bytes for each document. That halved the memtable bytes a document
// costs, and so the memtable flushes, which make the latency tail
// (dedupstream bench). A posting in Badger cost a
// random insert into the memtable's skiplist, ~4–5 µs on the 2-core test
// machine, and that took half the CPU of a document; format 3 wrote a
// marker per document. Format 4 still kept each replay key as a Badger
// key (~25 bytes with the bench's topic/partition/offset sources, and a
// skiplist insert), which a Stage wrote and nearly every Replayed missed, with a
// Bloom filter in memory so that the misses skipped Badger; without them
// level 0 gained one table where it had gained three in a latency run
// (dedupstream bench).
//
// States of format 1 and 2 kept each posting as a key: a group's head ('H'
// hash, 'B' band bandKey → its smallest seq) and its other postings ('h'
// hash seq, 'b' band bandKey seq, empty values); states of format 3 a 'p'
// marker per document; states of formats 1 to 4 an 'i' replay key per
// document, and markers without replay postings. Open loads those into the
// indexes too (an 'i' key is the replay posting of the seq it holds), and
// raises the format marker to 5, so an older build refuses the state rather
// than missing what this one wrote. Such keys are never written again; they
// expire or stay as they were.
//
// Readers read the index first and take their Badger snapshot after, so
// every record a posting leads to is in the snapshot: Put adds a
// transaction's postings to the index only once it has committed, one by
// one, so a reader running meanwhile may find some of a batch's postings
// and not the rest, as it may find some of its documents (the single
// writer's seqs ascend, and lookups ask for seqs below theirs). A
// posting may lead to a record that is gone (expired): readers skip it. A
// posting may also, rarely, belong to another key (the index keeps 32-bit
// fingerprints, see package postings): Exact checks the record's content
// hash, Replayed its replay key and content hash, and the stream verifies
// every candidate by its sketch. With a TTL,
// the Store looks every second for its oldest live record: lookups start
// from its seq, so a busy bucket's expired postings do not crowd out live
// ones (MaxBucket), and once an eighth of the seqs written since the last
// drop have expired, their postings are dropped from the indexes.
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
//	         flag 2 = the record holds its place in a sharded filter's
//	         sequence log and its original's (Doc.Pos, Doc.OfPos): 16 bytes
//	         after flag 1's field
//	         flag 4 = the document's cluster is provisional in its shard
//	         (Doc.Provisional); no field
//	then     uvarint of, uvarint cluster, uvarint len + id, uvarint len + url,
//	         uvarint len + of id, uvarint len + source, with flag 1 uvarint
//	         len + of source, then the sketch (rest of the value)
//
// Format 1 states hold record versions 1 and 2, which are still read: version
// 1 holds of at [18:26], cluster at [26:34] and similarity at [34:38], fixed
// width, and its strings from [38:]; version 2 (flag 1's content) adds the
// original's time at [38:46] and the fifth string. SetCluster keeps such a
// record in its version, rewriting the cluster in place, and decodes a
// version-3 record and encodes it again.
//
// On disk a record is stored in Badger's value log, not in the LSM tree next
// to its key: Badger moves every value of 256 bytes or more there (a record
// with its sketch is a few hundred), and the tree and the memtables hold a
// 12-byte pointer instead (WiscKey's key-value separation). So compactions
// never rewrite records, and a memtable holds more documents; so do the
// markers of more than a few documents. The metadata stays in the tree. A record
// that is overwritten (SetCluster) or expires leaves garbage in the value
// log, which the value-log GC (Options.GCInterval) reclaims a file at a time
// once compactions have dropped the old keys and counted the garbage: with a
// TTL, a file is reclaimed only when the tables holding its records' keys
// are compacted. In-memory states have no value log and keep every value in
// the tree. Badger maps the value-log file it appends to and msyncs it, on
// the write path, when it is full; on Linux the Store starts the writeback of
// that file's dirty pages every second (writeback_linux.go), so the msync has
// little left to wait for.
//
// The band keys are not stored in the record: they exist only as postings
// (and, hashed into index keys, in the markers), and the sketch they were
// derived from is stored, so they can be recomputed. Docs returned by the
// store therefore have Bands == nil.
//
// # Crash safety
//
// Apply (a shard of the sharded index) is Put plus the log position: the
// "applied" offset goes into the transaction that stores the last document, so
// a crash leaves a prefix of the documents and the old position, and re-reading
// the log from there finds the stored prefix as replays.
//
// Put writes each document's record, and the transaction's marker with its
// replay and published postings, in one Badger transaction, and a
// transaction is atomic across a crash. A batch too big for one transaction
// is split between documents, never inside one, and every transaction also
// carries the next sequence number. A crash in the middle of Put
// therefore leaves a prefix of the batch fully stored and the rest absent; the
// documents Put in the failed call are not marked as stored, so the caller can
// Put them again (a re-Put of the same seq writes the same keys, and a
// marker listing them again: the index holds a posting once). Stage writes
// the record and a marker of replay postings, Publish a marker of published
// postings: a crash between the two leaves a staged document that Replayed
// finds and the index of published postings rebuilt at Open does not hold,
// exactly as before the crash. Readers still skip postings whose record is
// missing: a record may expire between a reader's index lookup and its
// record read. A write whose Commit fails may still have written its
// transaction (a failed sync): its postings reach the indexes only when it
// is written again, as the pipeline does with the same seqs, or at the next
// Open.
package state
