// Package envtest is the conformance suite every environment passes: the
// determinism, scoring and lifecycle rules of spec/envs/README.md checked in
// one place, so that each env's own tests only add what is particular to it.
package envtest

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/rng"
)

// Solver plays the episode from the conversation so far (observations and
// its own earlier replies). Real solvers see text only (wrap them with
// FromText); a test oracle may also use the ID, for envs such as coin whose
// right answer is not in the prompt.
type Solver func(id challenge.ID, conversation []envs.Message) string

// FromText adapts a text-only solver of the form every env package exports.
// A solver that does not recognise the conversation answers "".
func FromText(solve func([]envs.Message) (string, bool)) Solver {
	return func(_ challenge.ID, conversation []envs.Message) string {
		a, _ := solve(conversation)
		return a
	}
}

// Options configures Conformance.
type Options struct {
	// N is the number of challenges to check (default 100).
	N int
	// Solver must reach at least SolvedReward on every challenge.
	Solver       Solver
	SolvedReward int
}

// IDs returns n challenge IDs of f's env with seeds drawn from a fixed stream.
func IDs(f envs.Factory, n int) []challenge.ID {
	s := rng.New(rng.Derive([32]byte{}, "envtest/"+f.Spec().Name))
	out := make([]challenge.ID, n)
	for i := range out {
		var seed [32]byte
		for j := 0; j < 32; j += 8 {
			v := s.Uint64()
			for k := 0; k < 8; k++ {
				seed[j+k] = byte(v >> (56 - 8*k))
			}
		}
		id, err := challenge.New(f.Spec().Name, f.Spec().Version, seed)
		if err != nil {
			panic(err)
		}
		out[i] = id
	}
	return out
}

// Play runs solver through one episode and returns the episode.
func Play(f envs.Factory, id challenge.ID, solver Solver) (envs.Episode, error) {
	return envs.Play(f, id, func(conversation []envs.Message) string { return solver(id, conversation) })
}

// Actions returns the assistant messages of a conversation in order.
func Actions(conversation []envs.Message) []string {
	var out []string
	for _, m := range conversation {
		if m.Role == envs.RoleAssistant {
			out = append(out, m.Content)
		}
	}
	return out
}

// Conformance checks the rules every env must keep, over n challenges:
//   - Reset of the same ID gives the same messages and info, and info names
//     challenge_id, env and version;
//   - different IDs give different prompts (at least most of the time);
//   - the solver reaches at least opts.SolvedReward, and a replay of its
//     actions gives the same conversation and rewards;
//   - empty and oversized first answers score 0 or less with a reason;
//   - Step before Reset and after done fail; an ID of another env or
//     version is refused.
func Conformance(t *testing.T, f envs.Factory, opts Options) {
	t.Helper()
	n, solver := opts.N, opts.Solver
	if n == 0 {
		n = 100
	}
	spec := f.Spec()
	if err := challenge.CheckEnvName(spec.Name); err != nil {
		t.Fatalf("spec name: %v", err)
	}
	if spec.MaxTurns < 1 || spec.MinReward > spec.MaxReward {
		t.Fatalf("spec bounds: %+v", spec)
	}
	ids := IDs(f, n)
	prompts := map[string]bool{}
	for _, id := range ids {
		obs1, info1, err := f.New().Reset(id)
		if err != nil {
			t.Fatalf("%s: reset: %v", id, err)
		}
		obs2, info2, _ := f.New().Reset(id)
		if !reflect.DeepEqual(obs1, obs2) || !reflect.DeepEqual(info1, info2) {
			t.Fatalf("%s: two resets differ", id)
		}
		if info1["challenge_id"] != id.String() || info1["env"] != spec.Name || info1["version"] != int64(spec.Version) {
			t.Fatalf("%s: info lacks challenge_id/env/version: %v", id, info1)
		}
		checkInfoTypes(t, id, info1)
		if len(obs1) == 0 || obs1[len(obs1)-1].Role != envs.RoleUser {
			t.Fatalf("%s: first observation must end with a user message: %v", id, obs1)
		}
		prompts[obs1[len(obs1)-1].Content] = true

		ep, err := Play(f, id, solver)
		if err != nil {
			t.Fatalf("%s: play: %v", id, err)
		}
		if ep.Reward < opts.SolvedReward || ep.Reward > spec.MaxReward {
			t.Fatalf("%s: solver got reward %d (%s), want %d to %d", id, ep.Reward, ep.Reason, opts.SolvedReward, spec.MaxReward)
		}
		again, err := envs.Replay(f, id, Actions(ep.Messages))
		if err != nil {
			t.Fatalf("%s: replay: %v", id, err)
		}
		if !reflect.DeepEqual(again.Messages, ep.Messages) || !reflect.DeepEqual(again.Rewards, ep.Rewards) || again.Reason != ep.Reason {
			t.Fatalf("%s: replay differs from play", id)
		}
	}
	if n >= 10 && len(prompts) < n*9/10 {
		t.Errorf("only %d distinct prompts for %d IDs", len(prompts), n)
	}

	id := ids[0]
	for name, answer := range map[string]string{
		"empty":     "",
		"blank":     " \n\t ",
		"oversized": strings.Repeat("7", envs.MaxAnswerBytes+1),
	} {
		env := f.New()
		if _, _, err := env.Reset(id); err != nil {
			t.Fatal(err)
		}
		out, err := env.Step(answer)
		if err != nil {
			t.Fatalf("%s answer: error %v, want a scored outcome", name, err)
		}
		if out.Reward > 0 || out.Reason == "" {
			t.Errorf("%s answer: reward %d reason %q, want <= 0 with a reason", name, out.Reward, out.Reason)
		}
		if name == "oversized" && !strings.Contains(out.Reason, "too large") {
			t.Errorf("oversized answer: reason %q does not say too large", out.Reason)
		}
	}

	if _, err := f.New().Step("1"); !errors.Is(err, envs.ErrNotStarted) {
		t.Errorf("step before reset: %v, want ErrNotStarted", err)
	}
	env := f.New()
	env.Reset(id)
	for i := 0; i <= spec.MaxTurns; i++ {
		out, err := env.Step("")
		if err != nil {
			if !errors.Is(err, envs.ErrDone) {
				t.Errorf("step after done: %v, want ErrDone", err)
			}
			break
		}
		if i == spec.MaxTurns {
			t.Errorf("episode never ended on empty answers")
		}
		_ = out
	}
	other := id
	other.Version++
	if _, _, err := f.New().Reset(other); !errors.Is(err, envs.ErrWrongEnv) {
		t.Errorf("reset with version %d: %v, want ErrWrongEnv", other.Version, err)
	}
	other = id
	other.Env = "zz" + spec.Name[:1]
	if _, _, err := f.New().Reset(other); !errors.Is(err, envs.ErrWrongEnv) {
		t.Errorf("reset with env %s: %v, want ErrWrongEnv", other.Env, err)
	}
}

func checkInfoTypes(t *testing.T, id challenge.ID, info envs.Info) {
	t.Helper()
	for k, v := range info {
		switch v.(type) {
		case string, int64, bool:
		default:
			t.Fatalf("%s: info[%q] has type %T; only string, int64 and bool are allowed", id, k, v)
		}
	}
}

// BenchmarkGenerate measures Reset: challenges per second.
func BenchmarkGenerate(b *testing.B, f envs.Factory) {
	ids := IDs(f, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := f.New().Reset(ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "challenges/s")
}

// BenchmarkScore measures replaying a solved episode: scores per second.
func BenchmarkScore(b *testing.B, f envs.Factory, solver Solver) {
	ids := IDs(f, 256)
	actions := make([][]string, len(ids))
	for i, id := range ids {
		ep, err := Play(f, id, solver)
		if err != nil {
			b.Fatal(err)
		}
		actions[i] = Actions(ep.Messages)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(ids)
		if _, err := envs.Replay(f, ids[k], actions[k]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "scores/s")
}
