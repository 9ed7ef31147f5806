package stream

import "github.com/dedupstream/dedupstream/state"

// Index is what the pipeline needs of the state store. *state.Store implements it.
//
// Every lookup takes a "before" sequence number: only documents first stored
// before it may be returned, which is what keeps verdicts replay-safe.
type Index interface {
	// Reserve returns the next sequence number.
	Reserve() uint64
	// Replayed returns the stored document first read at this input position
	// (topic/partition/offset) with this content, if any.
	Replayed(source string, contentHash uint64) (state.Doc, bool, error)
	// Exact returns the earliest document with this content hash and Seq < before.
	Exact(contentHash, before uint64) (state.Doc, bool, error)
	// Candidates appends documents sharing an index key (a band key under
	// its band, or any key of a set), Seq < before, earliest first.
	Candidates(dst []state.Doc, keys []uint64, before uint64) ([]state.Doc, state.Capped, error)
	// Stage stores decided documents so a replay finds them, without making
	// them findable by Exact or Candidates.
	Stage(docs []state.Doc) error
	// Publish makes staged documents findable by Exact and Candidates.
	Publish(docs []state.Doc) error
}
