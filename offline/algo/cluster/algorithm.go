package cluster

import (
	"fmt"
	"slices"
)

// Algorithm clusters a graph. It does not modify the graph.
type Algorithm func(*Graph) Clustering

// algorithms maps each name ByName accepts to its algorithm. It is a function rather than
// a package variable so that there is no mutable global.
func algorithms() map[string]Algorithm {
	return map[string]Algorithm{
		"components":   Components,
		"center":       Center,
		"merge-center": MergeCenter,
		"star":         Star,
		"online-star":  OnlineStarClustering,
		"ricochet-sr":  RicochetSR,
		"ricochet-bsr": RicochetBSR,
		"biconnected":  Biconnected,
	}
}

// ByName returns the algorithm called name (see the package documentation, or Names);
// "ricochet" is accepted for "ricochet-sr".
func ByName(name string) (Algorithm, error) {
	if name == "ricochet" {
		name = "ricochet-sr"
	}
	if alg, ok := algorithms()[name]; ok {
		return alg, nil
	}
	return nil, fmt.Errorf("cluster: unknown algorithm %q (known: %v)", name, Names())
}

// Names returns the algorithm names ByName accepts, sorted, without aliases.
func Names() []string {
	var out []string
	for name := range algorithms() {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
