// Package envs defines the Gym-style interface every evaluation environment
// implements, and the pieces they share: chat messages, answer limits and the
// tolerant answer extraction of spec/envs/README.md.
//
// An environment is a pure function of its challenge ID and the actions it is
// given: the same ID yields the same observations, and replaying the same
// actions yields the same rewards, on any machine and in any later release of
// the same env version. Actions are model output and are treated strictly as
// data; no environment ever executes them.
package envs

import (
	"errors"

	"github.com/affine-ledger/ledger/challenge"
)

// Chat roles used in observations and transcripts.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message, as OpenAI-compatible APIs take them.
type Message struct {
	Role    string `cbor:"role" json:"role"`
	Content string `cbor:"content" json:"content"`
}

// Info carries facts about a challenge or a step: challenge_id, env,
// version, difficulty parameters, the scoring reason. Values are strings,
// int64s or bools only, so that info encodes deterministically.
type Info map[string]any

// Space describes an observation or action space in words and bounds, the
// way a Gym space tells an agent what it will see and may do.
type Space struct {
	Kind        string `json:"kind"`
	Description string `json:"description"`
	MaxBytes    int    `json:"max_bytes,omitempty"`
}

// Spec is an environment's static description.
type Spec struct {
	Name        string `json:"name"`
	Version     uint16 `json:"version"`
	Description string `json:"description"`
	Observation Space  `json:"observation"`
	Action      Space  `json:"action"`
	// MaxTurns is the most actions an episode takes before it is done.
	MaxTurns int `json:"max_turns"`
	// MinReward and MaxReward bound every final reward.
	MinReward int `json:"min_reward"`
	MaxReward int `json:"max_reward"`
}

// Outcome is what Step returns: the next observation (the messages to send
// the model next, none when done), the reward of this step, whether the
// episode is over, the reason for the reward in words, and info.
type Outcome struct {
	Observation []Message
	Reward      int
	Done        bool
	Reason      string
	Info        Info
}

// Env is one episode's environment. Instances are not safe for concurrent
// use; make one per goroutine with a Factory.
type Env interface {
	Spec() Spec
	// Reset starts the episode of id and returns the first observation
	// (system and user messages) and info. It fails only for an ID of
	// another env or version.
	Reset(id challenge.ID) ([]Message, Info, error)
	// Step feeds one action (the model's reply, as text). Bad answers are
	// not errors: they score with a reason. Step fails only when called
	// before Reset or after the episode is done.
	Step(action string) (Outcome, error)
}

// Factory makes fresh Env instances of one env version.
type Factory interface {
	Spec() Spec
	New() Env
}

// Errors shared by all environments.
var (
	ErrWrongEnv   = errors.New("challenge ID is for another environment or version")
	ErrNotStarted = errors.New("step before reset")
	ErrDone       = errors.New("step after the episode is done")
)
