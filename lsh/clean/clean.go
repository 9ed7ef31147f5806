package clean

import (
	"bytes"
	"sync"
)

// Pooled scratch larger than these is dropped rather than kept, so one
// hostile page cannot pin memory for the life of the process.
const (
	maxPooledBytes = 1 << 20
	maxPooledStack = 1 << 16
)

// Cleaner normalises pages. It is safe for concurrent use; create it with New
// and do not copy it.
type Cleaner struct {
	maxTokens int
	drop      []tagID // elements whose subtree is skipped
	pool      sync.Pool
}

// Result describes one cleaned document.
type Result struct {
	Tokens    int    // words written
	Truncated bool   // MaxTokens was hit and later words were dropped
	Title     string // <title> text normalised the same way; HTML only, may be empty
}

// state is the per-call scratch a Cleaner pools.
type state struct {
	body, title writer
	titleBuf    []byte  // kept between calls; Result.Title is copied from it
	stack       []tagID // open elements, outermost first
	page        bytes.Reader
}

// New returns a Cleaner for o. The caller should have validated o; New
// applies defaults itself.
func New(o Options) *Cleaner {
	o.EnsureDefaults()
	c := &Cleaner{maxTokens: o.MaxTokens}
	for _, t := range o.DropTags {
		var buf [32]byte
		c.drop = append(c.drop, tagIDOf(tagName([]byte("<"+t+">"), &buf)))
	}
	c.pool.New = func() any { return new(state) }
	return c
}

// Text appends the normalised form of plain text to dst.
func (c *Cleaner) Text(dst, text []byte) ([]byte, Result) {
	s := c.get()
	defer c.put(s)
	w := &s.body
	w.reset(dst, c.maxTokens)
	w.write(text)
	return w.dst, Result{Tokens: w.tokens, Truncated: w.full}
}

// get takes scratch from the pool.
func (c *Cleaner) get() *state { return c.pool.Get().(*state) }

// put returns scratch to the pool, forgetting the caller's buffers and
// dropping oversized scratch.
func (c *Cleaner) put(s *state) {
	s.body.dst, s.title.dst = nil, nil
	s.body.trim()
	s.title.trim()
	if cap(s.titleBuf) > maxPooledBytes {
		s.titleBuf = nil
	}
	if cap(s.stack) > maxPooledStack {
		s.stack = nil
	}
	s.stack = s.stack[:0]
	s.page.Reset(nil)
	c.pool.Put(s)
}

// trim releases scratch buffers that grew past maxPooledBytes.
func (w *writer) trim() {
	for _, b := range []*[]byte{&w.san, &w.nfk, &w.fold} {
		if cap(*b) > maxPooledBytes {
			*b = nil
		}
	}
}
