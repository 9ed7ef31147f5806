//go:build !unix

package bench

// mapChunk allocates n bytes on the Go heap: no anonymous mappings here.
func mapChunk(n int) ([]byte, error) { return make([]byte, n), nil }

func unmapChunk([]byte) error { return nil }
