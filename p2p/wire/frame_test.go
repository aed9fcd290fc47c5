package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"testing"
)

// TestReadFrameAllocatesWhatArrives: a length prefix alone does not make
// the reader allocate the announced size.
func TestReadFrameAllocatesWhatArrives(t *testing.T) {
	in := append(binary.AppendUvarint(nil, MaxResponseBytes), make([]byte, 100)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := ReadFrame(bufio.NewReader(bytes.NewReader(in)), MaxResponseBytes); err == nil {
			t.Fatal("a truncated frame was read")
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 2<<20 {
		t.Fatalf("10 reads of a frame announcing %d bytes and carrying 100 allocated %d bytes", MaxResponseBytes, got)
	}
	// A whole frame still reads whole, across growth steps.
	body := bytes.Repeat([]byte("0123456789"), 100_000)
	var buf bytes.Buffer
	WriteFrame(&buf, body)
	got, err := ReadFrame(bufio.NewReader(io.MultiReader(bytes.NewReader(buf.Bytes()))), MaxResponseBytes)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read %d bytes of %d: %v", len(got), len(body), err)
	}
}
