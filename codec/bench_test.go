package codec_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// BenchmarkUnmarshal decodes a transcript whose model reply is pad bytes
// (a block's worth: 100 links, for the block) by the direct decoder and by
// the general path, and a transcript also as the verifier does
// (record.DecodeTranscriptBorrowed: decoded by hand, then checked), each
// against SHA-256 of the same bytes in the same iterations:
// ratio_vs_sha256 is decode time over hash time.
func BenchmarkUnmarshal(b *testing.B) {
	blk, pad := benchRecords(b)
	blockBytes, err := codec.Marshal(blk)
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name string
		data []byte
		new  func() any
	}{{"block", blockBytes, func() any { return new(record.Block) }}}
	for _, size := range []int{4096, 32768} {
		data, err := codec.Marshal(pad(size))
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, struct {
			name string
			data []byte
			new  func() any
		}{fmt.Sprintf("transcript/pad=%d", size), data, func() any { return new(record.Transcript) }})
	}
	for _, in := range inputs {
		for _, path := range []struct {
			name string
			fn   func([]byte, any) error
		}{{"direct", codec.Unmarshal}, {"general", codec.UnmarshalReencode}, {"ledger", decodeTranscript}} {
			if path.name == "ledger" && !strings.HasPrefix(in.name, "transcript") {
				continue
			}
			b.Run(in.name+"/"+path.name, func(b *testing.B) {
				var hash, dec time.Duration
				b.SetBytes(int64(len(in.data)))
				for b.Loop() {
					t0 := time.Now()
					sha256.Sum256(in.data)
					t1 := time.Now()
					if err := path.fn(in.data, in.new()); err != nil {
						b.Fatal(err)
					}
					dec += time.Since(t1)
					hash += t1.Sub(t0)
				}
				b.ReportMetric(float64(dec)/float64(hash), "ratio_vs_sha256")
			})
		}
	}
}

func decodeTranscript(data []byte, _ any) error {
	_, err := record.DecodeTranscriptBorrowed(data)
	return err
}

// BenchmarkMarshal encodes a transcript whose model reply is pad bytes, and
// a block of 100 links, by the direct encoder and by fxamacker's, each
// against SHA-256 of the encoding in the same iterations: ratio_vs_sha256
// is encode time over hash time, encode-ns/op the encoding alone (ns/op
// counts the hash too).
func BenchmarkMarshal(b *testing.B) {
	blk, pad := benchRecords(b)
	type input struct {
		name string
		v    any
	}
	inputs := []input{{"block", blk}}
	for _, size := range []int{2 << 10, 16 << 10} {
		inputs = append(inputs, input{fmt.Sprintf("transcript/pad=%d", size), pad(size)})
	}
	for _, in := range inputs {
		want, err := codec.MarshalGeneral(in.v)
		if err != nil {
			b.Fatal(err)
		}
		for _, path := range []struct {
			name string
			fn   func(any) ([]byte, error)
		}{{"direct", codec.Marshal}, {"general", codec.MarshalGeneral}} {
			b.Run(in.name+"/"+path.name, func(b *testing.B) {
				var hash, enc time.Duration
				b.SetBytes(int64(len(want)))
				b.ReportAllocs()
				for b.Loop() {
					t0 := time.Now()
					sha256.Sum256(want)
					t1 := time.Now()
					got, err := path.fn(in.v)
					if err != nil || len(got) != len(want) {
						b.Fatalf("%d bytes, want %d (%v)", len(got), len(want), err)
					}
					enc += time.Since(t1)
					hash += t1.Sub(t0)
				}
				b.ReportMetric(float64(enc)/float64(hash), "ratio_vs_sha256")
				b.ReportMetric(float64(enc.Nanoseconds())/float64(b.N), "encode-ns/op")
			})
		}
	}
}

// benchRecords returns a block of 100 transcript links and a function
// making a transcript whose last message, a model reply, is size bytes.
func benchRecords(b *testing.B) (*record.Block, func(size int) *record.Transcript) {
	s := seeds(b)
	var tr record.Transcript
	if err := codec.Unmarshal(s["transcript"][0], &tr); err != nil {
		b.Fatal(err)
	}
	var blk record.Block
	if err := codec.Unmarshal(s["block"][1], &blk); err != nil {
		b.Fatal(err)
	}
	for len(blk.Transcripts) < 100 {
		blk.Transcripts = append(blk.Transcripts, codec.LinkTo(codec.Sum([]byte(fmt.Sprint(len(blk.Transcripts))))))
	}
	return &blk, func(size int) *record.Transcript {
		t := tr
		t.Conversation = append(t.Conversation[:len(t.Conversation):len(t.Conversation)], t.Conversation[len(t.Conversation)-1])
		t.Conversation[len(t.Conversation)-1].Content = strings.Repeat("z", size)
		return &t
	}
}
