package node_test

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
)

const acceptChildEnv = "LEDGER_REVIEW_ACCEPT_CHILD"

// TestReviewControlSurvivesFDExhaustion: clients that open more
// connections than the node has descriptors left make Accept fail
// (EMFILE) for a while; the control socket must answer again once they
// are gone, as an HTTP server does, not stop accepting for the rest of
// the node's life. The node runs in a child process with a low descriptor
// limit; this process is the hostile client.
func TestReviewControlSurvivesFDExhaustion(t *testing.T) {
	if os.Getenv(acceptChildEnv) != "" {
		t.Skip("running as the child")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestReviewAcceptChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), acceptChildEnv+"=1", "GORACE=atexit_sleep_ms=0")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	lines := bufio.NewReader(out)
	line, err := lines.ReadString('\n')
	dataDir, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
	if err != nil || !ok {
		t.Fatalf("child: %q %v\n%s", line, err, stderr.String())
	}
	// More connections than the child has descriptors; each asks
	// nothing, so the node holds it until its request timeout.
	var conns []net.Conn
	for range 64 {
		c, err := net.Dial("unix", node.ControlSocket(dataDir))
		if err != nil {
			break // the backlog is full: accept has stopped
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
	in.Write([]byte("check\n"))
	line, err = lines.ReadString('\n')
	if err != nil || line != "checkpoint ok\n" {
		t.Fatalf("a checkpoint once the hostile connections are gone: %q %v\n%s", line, err, stderr.String())
	}
}

// TestReviewAcceptChild is TestReviewControlSurvivesFDExhaustion's node.
func TestReviewAcceptChild(t *testing.T) {
	if os.Getenv(acceptChildEnv) == "" {
		t.Skip("only run by TestReviewControlSurvivesFDExhaustion")
	}
	c := nodetest.New(t, 1, nodetest.Options{Observers: []int{0}})
	c.Start(0)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	low := orig
	low.Cur = uint64(len(fds) + 8)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready " + c.Configs[0].DataDir + "\n")
	sc := bufio.NewScanner(os.Stdin)
	sc.Scan()
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	// The hostile connections' handlers give up after the request
	// timeout; a checkpoint is asked for on a connection of its own.
	conn, err := net.Dial("unix", node.ControlSocket(c.Configs[0].DataDir))
	if err != nil {
		os.Stdout.WriteString("checkpoint failed: " + err.Error() + "\n")
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	conn.Write([]byte("checkpoint\n"))
	reply, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(reply, `"dir"`) {
		os.Stdout.WriteString("checkpoint failed: " + strings.TrimSpace(reply) + " " + errString(err) + "\n")
		return
	}
	os.Stdout.WriteString("checkpoint ok\n")
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
