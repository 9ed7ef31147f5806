package offline

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/dedupstream/dedupstream/state"
)

// shardName is a shard directory's name under shards/ (shard.ShardDir).
var shardName = regexp.MustCompile(`^[0-9]{3,}$`)

// NotSharded refuses the state directory of a sharded instance, which holds
// its shards under shards/NNN and no documents of its own, and the
// directory of one shard: re-clustering reads one state, a shard holds only
// the documents whose keys it owns (each document in several shards), and
// with minhash or oph it keeps their 8-bit compact signatures, from which
// the index keys cannot be derived again.
func NotSharded(dir string) error {
	if dir == "" {
		return nil
	}
	const collect = "collect the whole index from the sequence log first, with the filter's configuration: " +
		"'dedupstream state collect --config FILE --state NEWDIR', then re-cluster NEWDIR"
	if fi, err := os.Stat(filepath.Join(dir, "shards")); err == nil && fi.IsDir() {
		return fmt.Errorf("state %s is a sharded filter's (index.shards > 0), which holds only the shards it owned: %s", dir, collect)
	}
	if clean := filepath.Clean(dir); filepath.Base(filepath.Dir(clean)) == "shards" && shardName.MatchString(filepath.Base(clean)) {
		return fmt.Errorf("state %s is one shard of a sharded filter (index.shards > 0), which holds only the documents whose keys it owns: %s", dir, collect)
	}
	return nil
}

// OpenState opens the state of a stopped filter, so.Dir, for re-clustering:
// it refuses a sharded filter's directory (NotSharded), runs no value-log
// GC, and raises the candidate caps to at least 1,000 so that popular
// buckets are read whole.
func OpenState(so state.Options) (*state.Store, error) {
	if err := NotSharded(so.Dir); err != nil {
		return nil, err
	}
	so.MaxCandidates, so.MaxBucket, so.GCInterval = max(so.MaxCandidates, 1000), max(so.MaxBucket, 1000), -1
	return state.Open(so)
}
