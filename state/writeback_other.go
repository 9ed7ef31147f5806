//go:build !linux

package state

// startWriteback does nothing off Linux, where there is no sync_file_range:
// the kernel's own writeback serves.
func (s *Store) startWriteback() {}
