package shard

import (
	"errors"
	"testing"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// TestShardStoreOfAnotherCompactForm checks what a shard does with a store
// an earlier build wrote: one holding the same method's sketches in another
// form (the 16-bit signatures themselves, before shards stored 8-bit ones)
// is deleted and opened empty, to be rebuilt from the probe log; one of
// another sketch configuration is refused as for any state directory.
func TestShardStoreOfAnotherCompactForm(t *testing.T) {
	method := func(numPerm int) lsh.Method {
		cfg := lsh.Config{Method: lsh.MethodOPH}
		cfg.Params.NumPerm = numPerm
		cfg.EnsureDefaults()
		m, err := lsh.NewMethod(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	write := func(dir string, m lsh.Method, suffix string) {
		o := state.Options{Dir: dir}.ForMethod(m)
		o.SketchVersion += suffix
		o.SetKeys, o.NoExactIndex = true, true
		st, err := state.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply([]state.Doc{{Seq: 1, ID: "a", Source: "in/0/0", ContentHash: 7, Bands: []uint64{1, 2}}}, 1); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	m := method(128)
	c, ok := lsh.CompactOf(m)
	if !ok {
		t.Fatal("oph has no compact form")
	}
	open := func(dir string, base lsh.Method) (*state.Store, error) {
		s := &Server{o: ServerOptions{Logger: zap.NewNop(), Method: base}}
		o := state.Options{Dir: dir}.ForMethod(c)
		o.SetKeys, o.NoExactIndex = true, true
		st, _, err := s.store(0, o)
		return st, err
	}

	// The shard stores of builds that stored the 16-bit signatures as they
	// are, or (sketch.bits 32) their 16-bit compact form.
	for _, suffix := range []string{"", "-b16bit"} {
		old := t.TempDir()
		write(old, m, suffix)
		st, err := open(old, m)
		if err != nil {
			t.Fatalf("opening a shard store of sketch %q: %v, want it deleted and opened afresh", m.Version()+suffix, err)
		}
		if _, ok, _ := st.Applied(); ok || st.Stats().Docs != 0 {
			t.Errorf("%q: the reopened store still holds its documents (docs %d)", suffix, st.Stats().Docs)
		}
		if st.SketchVersion() != c.Version() {
			t.Errorf("sketch version %q, want %q", st.SketchVersion(), c.Version())
		}
		st.Close()
	}

	other := t.TempDir()
	write(other, method(64), "") // another configuration: not ours to delete
	if _, err := open(other, m); !errors.As(err, new(*state.SketchMismatchError)) {
		t.Errorf("opening a shard store of another sketch configuration: %v, want the mismatch refused", err)
	}
}
