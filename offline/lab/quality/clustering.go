package quality

import "fmt"

// Clustering assigns documents, named by string ids, to clusters. Documents are numbered
// in the order they were added and clusters 0..K-1 in the order of their first document.
type Clustering struct {
	ids    []string
	labels []int32
	index  map[string]int32
	k      int
}

// FromLabels builds a clustering in which ids[i] belongs to cluster labels[i]; labels are
// any int32 values and are renumbered. A repeated id is an error.
func FromLabels(ids []string, labels []int32) (*Clustering, error) {
	if len(ids) != len(labels) {
		return nil, fmt.Errorf("quality: %d ids but %d labels", len(ids), len(labels))
	}
	b := newBuilder(len(ids))
	names := make(map[int32]int32)
	for i, id := range ids {
		l, ok := names[labels[i]]
		if !ok {
			l = b.newCluster()
			names[labels[i]] = l
		}
		if err := b.add(id, l); err != nil {
			return nil, fmt.Errorf("quality: document %d: %w", i, err)
		}
	}
	return b.c, nil
}

// FromGroups builds a clustering with one cluster per group. A repeated id is an error;
// an empty group is skipped.
func FromGroups(groups [][]string) (*Clustering, error) {
	b := newBuilder(0)
	for gi, g := range groups {
		if len(g) == 0 {
			continue
		}
		l := b.newCluster()
		for _, id := range g {
			if err := b.add(id, l); err != nil {
				return nil, fmt.Errorf("quality: group %d: %w", gi, err)
			}
		}
	}
	return b.c, nil
}

// Len returns the number of documents.
func (c *Clustering) Len() int { return len(c.ids) }

// K returns the number of clusters, singletons included.
func (c *Clustering) K() int { return c.k }

// Label returns the cluster of the document id and whether the clustering has it.
func (c *Clustering) Label(id string) (int32, bool) {
	i, ok := c.index[id]
	if !ok {
		return -1, false
	}
	return c.labels[i], true
}

// Groups returns the ids of each cluster, indexed by label, in the order they were added.
func (c *Clustering) Groups() [][]string {
	out := make([][]string, c.k)
	for i, l := range c.labels {
		out[l] = append(out[l], c.ids[i])
	}
	return out
}

// builder adds documents to a Clustering, refusing repeated ids.
type builder struct {
	c *Clustering
}

func newBuilder(n int) builder {
	return builder{&Clustering{
		ids: make([]string, 0, n), labels: make([]int32, 0, n), index: make(map[string]int32, n),
	}}
}

func (b builder) newCluster() int32 {
	b.c.k++
	return int32(b.c.k - 1)
}

// errRepeated is returned by add for an id already present; prev is its document number.
type errRepeated struct {
	id   string
	prev int32
}

func (e errRepeated) Error() string { return fmt.Sprintf("id %q appears twice", e.id) }

func (b builder) add(id string, label int32) error {
	if id == "" {
		return fmt.Errorf("empty id")
	}
	if prev, ok := b.c.index[id]; ok {
		return errRepeated{id, prev}
	}
	b.c.index[id] = int32(len(b.c.ids))
	b.c.ids = append(b.c.ids, id)
	b.c.labels = append(b.c.labels, label)
	return nil
}
