package state

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// SetCluster rewrites the cluster id of a stored document, keeping its expiry.
// It returns an error wrapping ErrNotFound if the document is not stored.
func (s *Store) SetCluster(seq, cluster uint64) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	err := s.db.Update(func(txn *badger.Txn) error {
		e, ok, err := clusterEntry(s.db, txn, seq, cluster)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		return txn.SetEntry(e)
	})
	if err != nil {
		return fmt.Errorf("set cluster of document %d: %w", seq, err)
	}
	return nil
}

// SetClusters rewrites the cluster ids of many documents — clusters[i] for
// seqs[i] — in as few transactions as fit, keeping each record's expiry. It is
// for the offline pass, which writes back every document's cluster. Documents
// no longer stored (expired) are skipped and counted in missing.
func (s *Store) SetClusters(seqs, clusters []uint64) (missing int, err error) {
	if len(seqs) != len(clusters) {
		return 0, fmt.Errorf("set clusters: %d seqs but %d clusters", len(seqs), len(clusters))
	}
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.leave()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	txn := s.db.NewTransaction(true)
	defer func() { txn.Discard() }()
	for i := range seqs {
		e, ok, err := clusterEntry(s.db, txn, seqs[i], clusters[i])
		if err != nil {
			return missing, fmt.Errorf("set cluster of document %d: %w", seqs[i], err)
		}
		if !ok {
			missing++
			continue
		}
		if err = txn.SetEntry(e); errors.Is(err, badger.ErrTxnTooBig) {
			if err = txn.Commit(); err == nil {
				txn = s.db.NewTransaction(true)
				err = txn.SetEntry(e)
			}
		}
		if err != nil {
			return missing, fmt.Errorf("set clusters: %w", err)
		}
	}
	if err := txn.Commit(); err != nil {
		return missing, fmt.Errorf("set clusters: %w", err)
	}
	return missing, nil
}

// clusterEntry reads seq's record and returns it rewritten with cluster.
func clusterEntry(db *badger.DB, txn *badger.Txn, seq, cluster uint64) (*badger.Entry, bool, error) {
	var rec []byte
	expiresAt, ok, err := readRecord(db, txn, seq, func(v []byte) (err error) {
		rec, err = withCluster(seq, v, cluster)
		return err
	})
	if !ok || err != nil {
		return nil, false, err
	}
	return &badger.Entry{Key: appendDocKey(nil, seq), Value: rec, ExpiresAt: expiresAt}, true, nil
}
