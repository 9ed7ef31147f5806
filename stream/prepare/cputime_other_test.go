//go:build !linux

package prepare

// threadCPU is not measured here; benchmarks report no cpu-ns/op.
func threadCPU() int64 { return 0 }
