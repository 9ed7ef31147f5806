package fim

import (
	"errors"
	"time"
)

// Options configures Mine. The zero value is not valid: MinSupport must be set.
type Options struct {
	// MinSupport is the absolute support threshold: an itemset is frequent when at
	// least this many transactions contain it. At least 1.
	MinSupport int
	// Maximal mines maximal frequent itemsets (no frequent proper superset) instead
	// of closed ones (no proper superset with the same support).
	Maximal bool
	// MaxItemsets stops Mine after it has emitted this many itemsets and finds one
	// more. Zero means no limit.
	MaxItemsets int
	// MaxMemory stops Mine when its working memory would exceed this many bytes.
	// The count is approximate: it covers the copy of the database and the
	// conditional databases, not the Dataset itself or what emit keeps. Zero means
	// no limit.
	MaxMemory int64
	// Timeout, when positive, stops Mine after this long, as a context
	// deadline does (Result.Stopped "context deadline exceeded").
	Timeout time.Duration
	// Progress, if set, is called with the number of itemsets emitted so far
	// about every 2^18 units of work (transaction items scanned), on the
	// goroutine that called Mine.
	Progress func(itemsets int64)
}

// Validate reports whether the options can be used.
func (o Options) Validate() error {
	switch {
	case o.MinSupport < 1:
		return errors.New("fim: min support must be at least 1")
	case o.MaxItemsets < 0:
		return errors.New("fim: max itemsets must not be negative")
	case o.MaxMemory < 0:
		return errors.New("fim: max memory must not be negative")
	}
	return nil
}

// Reasons Mine gives in Result.Stopped when it ends early because of a limit; when
// the context ends, Stopped is the context's error text instead, such as "context
// deadline exceeded" or "context canceled".
const (
	StoppedMaxItemsets = "max itemsets"
	StoppedMemory      = "memory"
)

// Result tells how far Mine got.
type Result struct {
	// Itemsets is the number of itemsets emitted.
	Itemsets int64
	// Complete is true when every itemset was emitted.
	Complete bool
	// Stopped says why Mine ended early: StoppedMaxItemsets, StoppedMemory, the
	// context's error text, or "emit: " and the error emit returned. Empty when
	// Complete.
	Stopped string
	// Elapsed is the wall time Mine took.
	Elapsed time.Duration
}
