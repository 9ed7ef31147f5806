package main

import (
	"bytes"
	"os"
	"testing"
)

// TestModelIsGenerated: the committed table is what this command writes, so
// it can be rebuilt and reviewed (go generate ./stream/prepare).
func TestModelIsGenerated(t *testing.T) {
	committed, err := os.ReadFile("../../../stream/prepare/detect_model.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, source()) {
		t.Error("stream/prepare/detect_model.go differs from what detectgen writes: run go generate ./stream/prepare")
	}
}
