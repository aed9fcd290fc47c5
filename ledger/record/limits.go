package record

// Size limits of spec/ledger.md. Decoders enforce them before and after
// parsing, so a peer cannot make a node store or forward more than this.
const (
	// MaxTranscriptBytes bounds one encoded transcript.
	MaxTranscriptBytes = 2 << 20
	// MaxMessages bounds the messages of one conversation.
	MaxMessages = 256
	// MaxConversationBytes bounds the summed role and content bytes of one
	// conversation.
	MaxConversationBytes = 1 << 20
	// MaxTurnRewards bounds the per-turn rewards of one transcript.
	MaxTurnRewards = MaxMessages
	// MaxTextField bounds free-text fields (reason, error, model, revision,
	// endpoint).
	MaxTextField = 4 << 10
	// MaxModelHash bounds a miner's model hash in bytes.
	MaxModelHash = 64
	// MaxRoleBytes bounds a message role.
	MaxRoleBytes = 16

	// MaxBlockBytes bounds one encoded signed block.
	MaxBlockBytes = 256 << 10
	// MaxTranscriptsPerBlock bounds the transcript links of one block.
	MaxTranscriptsPerBlock = 4096
	// MaxDecisionsPerBlock bounds the decision links of one block.
	MaxDecisionsPerBlock = 256
	// MaxDecisionBytes bounds one encoded decision record.
	MaxDecisionBytes = 1 << 20
	// MaxBlockObjectBytes bounds the summed encoded bytes of the
	// transcripts and decisions one block links. Without it a block within
	// the link counts could link 4096 transcripts of 2 MiB each, and every
	// node storing it would have to fetch and hold 8 GiB at once.
	MaxBlockObjectBytes = 64 << 20

	// MaxForkProofBytes bounds an encoded fork proof: two blocks and a
	// little framing.
	MaxForkProofBytes = 2*MaxBlockBytes + 1024
)
