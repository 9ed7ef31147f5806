package shard

import (
	"errors"
	"testing"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// TestShardStoreOfAnEarlierLayout checks what a shard does with a store an
// earlier build wrote: one holding the same method's sketches as that build's
// layout kept them (the signatures themselves, or a "-b…" compact form) is
// deleted and opened empty, to be rebuilt from the sequence log; one of
// another sketch configuration is refused as for any state directory.
func TestShardStoreOfAnEarlierLayout(t *testing.T) {
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
	options := func(dir string, m lsh.Method, suffix string) state.Options {
		o := state.Options{Dir: dir}.ForMethod(m)
		o.SketchVersion += suffix
		o.SetKeys, o.NoExactIndex = true, true
		return o
	}
	write := func(dir string, m lsh.Method, suffix string) {
		st, err := state.Open(options(dir, m, suffix))
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
	open := func(dir string) (*state.Store, error) {
		s := &Server{o: ServerOptions{Logger: zap.NewNop(), Method: m}}
		st, _, err := s.store(0, options(dir, m, storeVersionSuffix))
		return st, err
	}
	for _, suffix := range []string{"", "-b8bit", "-b16bit"} {
		old := t.TempDir()
		write(old, m, suffix)
		st, err := open(old)
		if err != nil {
			t.Fatalf("opening a shard store of sketch %q: %v, want it deleted and opened afresh", m.Version()+suffix, err)
		}
		if _, ok, _ := st.Applied(); ok || st.Stats().Docs != 0 {
			t.Errorf("%q: the reopened store still holds its documents (docs %d)", suffix, st.Stats().Docs)
		}
		if want := m.Version() + storeVersionSuffix; st.SketchVersion() != want {
			t.Errorf("sketch version %q, want %q", st.SketchVersion(), want)
		}
		st.Close()
	}
	kept := t.TempDir()
	write(kept, m, storeVersionSuffix)
	st, err := open(kept)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Applied(); !ok {
		t.Errorf("a store of this layout was not kept")
	}
	st.Close()
	other := t.TempDir()
	write(other, method(64), "") // another configuration: not ours to delete
	if _, err := open(other); !errors.As(err, new(*state.SketchMismatchError)) {
		t.Errorf("opening a shard store of another sketch configuration: %v, want the mismatch refused", err)
	}
}
