package offline

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
