package wire

import (
	"fmt"

	"github.com/ipfs/go-cid"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// BlocksTopic is the gossip topic of netuid's blocks.
func BlocksTopic(netuid uint16) string { return fmt.Sprintf("/affine-ledger/%d/blocks/1", netuid) }

// ForksTopic is the gossip topic of netuid's fork proofs.
func ForksTopic(netuid uint16) string { return fmt.Sprintf("/affine-ledger/%d/forks/1", netuid) }

// MessageID is the gossipsub message ID of every topic: the binary CID
// (CIDv1, dag-cbor, sha2-256) of the message data. It is content-addressed,
// so the same data has one ID whoever publishes it (a fork proof built by
// several nodes is one message), and data that differs in any byte has
// another (a peer cannot pre-empt a valid message with an invalid one of the
// same ID).
func MessageID(m *pb.Message) string { return string(codec.Sum(m.Data).Bytes()) }

// BlockMessage is the data of a message on the blocks topic: a signed block
// and either every object it links (transcripts in link order, then
// decisions in link order) or none of them.
type BlockMessage struct {
	Block   []byte   `cbor:"block"`
	Objects [][]byte `cbor:"objects"`
}

// EncodeBlockMessage builds the message of a block: with its objects if the
// result is at most MaxGossipBytes, else the block alone (receivers then
// fetch the objects by sync).
func EncodeBlockMessage(block []byte, objects [][]byte) ([]byte, error) {
	data, err := codec.Marshal(BlockMessage{Block: block, Objects: objects})
	if err != nil {
		return nil, fmt.Errorf("block message: %w", err)
	}
	if len(data) <= MaxGossipBytes {
		return data, nil
	}
	data, err = codec.Marshal(BlockMessage{Block: block, Objects: [][]byte{}})
	if err != nil {
		return nil, fmt.Errorf("block message: %w", err)
	}
	return data, nil
}

// ReceivedBlock is a block message checked without the store: what a topic
// validator leaves in pubsub.Message.ValidatorData.
type ReceivedBlock struct {
	*record.Block
	CID cid.Cid
	Raw []byte
	// Objects maps each linked CID to its bytes; nil when the message
	// carried none.
	Objects map[cid.Cid][]byte
}

// Links returns the block's transcripts then decisions: the order of a
// message's (and a sync response's) objects.
func Links(b *record.Block) []cid.Cid {
	return append(b.TranscriptCIDs(), b.DecisionCIDs()...)
}

// DecodeBlockMessage parses a blocks-topic message and checks everything
// that needs no store: size, canonical encoding, block structure, signature,
// and that the objects, if present, are exactly the linked ones in order. It
// never panics.
func DecodeBlockMessage(data []byte) (*ReceivedBlock, error) {
	if len(data) > MaxGossipBytes {
		return nil, fmt.Errorf("block message: %d bytes, max %d", len(data), MaxGossipBytes)
	}
	var m BlockMessage
	if err := codec.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("block message: %w", err)
	}
	blk, err := record.DecodeBlock(m.Block)
	if err != nil {
		return nil, fmt.Errorf("block message: %w", err)
	}
	c := codec.Sum(m.Block)
	if err := blk.VerifySignature(); err != nil {
		return nil, fmt.Errorf("block message %s: %w", c, err)
	}
	rb := &ReceivedBlock{Block: blk, CID: c, Raw: m.Block}
	if len(m.Objects) == 0 {
		return rb, nil
	}
	links := Links(blk)
	if len(m.Objects) != len(links) {
		return nil, fmt.Errorf("block message %s: %d objects, the block links %d", c, len(m.Objects), len(links))
	}
	rb.Objects = make(map[cid.Cid][]byte, len(links))
	for i, l := range links {
		if err := codec.CheckCID(m.Objects[i], l); err != nil {
			return nil, fmt.Errorf("block message %s: object %d: %w", c, i, err)
		}
		rb.Objects[l] = m.Objects[i]
	}
	return rb, nil
}
