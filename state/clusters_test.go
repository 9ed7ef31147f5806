package state

import "testing"

// TestSetClusters writes back many cluster ids at once and skips documents
// that are gone.
func TestSetClusters(t *testing.T) {
	modes(t, Options{}, func(t *testing.T, s *Store) {
		var docs []Doc
		for i := 0; i < 3000; i++ {
			docs = append(docs, doc(s.Reserve(), uint64(i)))
		}
		put(t, s, docs...)
		var seqs, clusters []uint64
		for _, d := range docs {
			seqs, clusters = append(seqs, d.Seq), append(clusters, 1+d.Seq%10)
		}
		seqs, clusters = append(seqs, 999_999), append(clusters, 5) // never stored
		missing, err := s.SetClusters(seqs, clusters)
		if err != nil || missing != 1 {
			t.Fatalf("SetClusters: missing %d, %v", missing, err)
		}
		for _, d := range docs {
			got, ok, err := s.Get(d.Seq)
			if err != nil || !ok || got.Cluster != 1+d.Seq%10 || got.ID != d.ID {
				t.Fatalf("seq %d: cluster %d (%v %v), want %d", d.Seq, got.Cluster, ok, err, 1+d.Seq%10)
			}
		}
		if _, err := s.SetClusters([]uint64{1}, nil); err == nil {
			t.Error("mismatched lengths accepted")
		}
	})
}
