package stream

import (
	"context"

	"github.com/dedupstream/dedupstream/state"
)

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

// Sharded is the band-sharded index as the pipeline, its front, uses it; the
// shards that own a document's index keys decide it, each over the documents
// it holds, and the front joins their answers. stream/shard.Front implements it.
type Sharded interface {
	// Ask sends the documents' probes to the shards that own their keys. The
	// documents are as Decider.DecideBatch takes them; their Source names the
	// input partition whose owner reads the answers.
	Ask(ctx context.Context, docs []state.Doc) (Asked, error)
}

// Asked is one batch's lookups in the sharded index.
type Asked interface {
	// Wait returns one Decision per document, joined over the shards asked,
	// once they have all answered: an exact copy if any shard found one, else
	// the match earliest in the global order (Before), else Unique.
	Wait(ctx context.Context) ([]Decision, error)
	// Settle tells the shards the joined decisions where their answers
	// differ, so that later documents matching these find their real
	// clusters and a replay of the batch joins the same decisions. The
	// pipeline calls it once the batch is decided, before its output is
	// written.
	Settle(ctx context.Context) error
}
