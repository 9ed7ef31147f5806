package offline

import "github.com/dedupstream/dedupstream/state"

// StoredClusters reads the cluster id of every document in st, in stored
// order: the stream's, or the offline pass's after a write-back. It returns
// each document's id and a label per distinct cluster, numbered from 0 in
// order of first appearance; a document without a cluster id (0) is the
// earliest document of its own cluster.
func StoredClusters(st *state.Store) (ids []string, labels []int32, err error) {
	label := make(map[uint64]int32)
	err = st.Scan(func(d state.Doc) error {
		key := d.Cluster
		if key == 0 {
			key = d.Seq // the id it has as the earliest document of its own cluster
		}
		l, ok := label[key]
		if !ok {
			l = int32(len(label))
			label[key] = l
		}
		ids, labels = append(ids, d.ID), append(labels, l)
		return nil
	})
	return ids, labels, err
}
