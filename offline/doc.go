// Package offline re-clusters the stored state, evaluates verdicts against labelled
// corpora and writes reports; its subpackages read real corpora and generate labelled
// near-duplicate pages.
package offline
