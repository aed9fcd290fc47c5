package ledger_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

const crashDirEnv = "LEDGER_CRASH_CHILD_DIR"

// TestCrash kills a writer process with SIGKILL at random moments and checks
// after each kill that every transcript it acknowledged is in the reopened
// store and the chain's checkpoints are consistent. The child acknowledges
// (prints) a transcript only after its Append returned.
func TestCrash(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("running as the crash child")
	}
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	dir := t.TempDir()
	v := alice(t).Public()
	acked := map[cid.Cid]bool{}
	// Blocks verified in earlier rounds cannot change (append-only), so
	// each round checks only the new ones, continuing the running tree.
	verified := record.NewTree()
	var next uint64
	var prev cid.Cid
	deadline := time.Now().Add(60 * time.Second)
	for round := 0; round < rounds && time.Now().Before(deadline); round++ {
		got := runCrashChild(t, dir, round, time.Duration(20+rand.IntN(400))*time.Millisecond)
		for _, c := range got {
			acked[c] = true
		}
		s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		for b, err := range s.Blocks(v, next) {
			if err != nil {
				t.Fatal(err)
			}
			if b.Height > 0 && !b.Prev.Cid.Equals(prev) {
				t.Fatalf("round %d: block %d does not link block %d", round, b.Height, b.Height-1)
			}
			if err := b.VerifySignature(); err != nil {
				t.Fatal(err)
			}
			for _, c := range b.TranscriptCIDs() {
				verified.Append(c, nil)
			}
			if verified.Checkpoint() != b.Checkpoint {
				t.Fatalf("round %d: block %d checkpoint is not the log's", round, b.Height)
			}
			next, prev = b.Height+1, b.CID
		}
		inLog := map[cid.Cid]bool{}
		for r, err := range s.Leaves(v, 0) {
			if err != nil {
				t.Fatal(err)
			}
			inLog[r.CID] = true
		}
		for c := range acked {
			if !inLog[c] {
				t.Fatalf("round %d: acknowledged transcript %s lost", round, c)
			}
		}
		if h, err := s.Head(v); err == nil && h.Checkpoint != verified.Checkpoint() {
			t.Fatalf("round %d: head checkpoint %+v, blocks give %+v", round, h.Checkpoint, verified.Checkpoint())
		}
		s.Close()
		t.Logf("round %d: %d acknowledged in this run, log size %d", round, len(got), verified.Size())
	}
	if len(acked) == 0 {
		t.Fatal("the child never acknowledged anything: the test tested nothing")
	}
}

func runCrashChild(t *testing.T, dir string, round int, after time.Duration) []cid.Cid {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, "LEDGER_CRASH_ROUND="+strconv.Itoa(round))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acks []cid.Cid
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			// A line cut by the kill has no newline and Scan still returns
			// it; only whole "ack" lines with a parsable CID count.
			f := strings.Fields(sc.Text())
			if len(f) == 2 && f[0] == "ack" {
				if c, err := cid.Decode(f[1]); err == nil {
					acks = append(acks, c)
				}
			}
		}
	}()
	// Kill at a random moment after the child has had time to write.
	time.Sleep(after)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	wg.Wait()
	return acks
}

// TestCrashChild is the writer TestCrash kills. It appends until killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("only run by TestCrash")
	}
	round, _ := strconv.Atoi(os.Getenv("LEDGER_CRASH_ROUND"))
	k, _ := keys.FromURI("//Alice")
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
	a, err := s.NewAppender(k)
	if err != nil {
		os.Exit(3)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := uint64(0); ; i++ {
				n := uint64(round)<<32 | uint64(w)<<24 | i
				var ts []record.Transcript
				for j := uint64(0); j <= i%3; j++ { // 1 to 3 per request
					ts = append(ts, recordtest.Transcript(k.Public(), n<<2|j, 200))
				}
				r, err := a.Append(context.Background(), recordtest.Anchor(uint64(round)), ts, nil)
				if err != nil {
					fmt.Fprintln(os.Stderr, "crash child append:", err)
					os.Exit(3)
				}
				mu.Lock()
				for _, c := range r.Transcripts {
					fmt.Fprintf(os.Stdout, "ack %s\n", c)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
