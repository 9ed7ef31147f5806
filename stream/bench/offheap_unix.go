//go:build unix

package bench

import (
	"fmt"
	"syscall"
)

// mapChunk maps n bytes of anonymous memory, outside the Go heap.
func mapChunk(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("map %d bytes for the latency documents: %w", n, err)
	}
	return b, nil
}

func unmapChunk(b []byte) error { return syscall.Munmap(b) }
