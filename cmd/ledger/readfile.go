package main

import (
	"fmt"
	"io"
	"os"

	"github.com/affine-ledger/ledger/chain/local"
)

// Bounds of the small files the command line reads whole. A wrong path (a
// log, a device, a CAR) must fail with a clear error, not fill the memory.
const (
	// maxTokenFileBytes bounds an admin token file (the server writes 64
	// hex characters).
	maxTokenFileBytes = 4 << 10
	// maxGenesisFileBytes bounds a genesis file as chain.Open reads it.
	maxGenesisFileBytes = local.MaxGenesisBytes
)

// readSmallFile reads the file at path whole if it holds at most max bytes.
func readSmallFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, max)
	}
	return data, nil
}
