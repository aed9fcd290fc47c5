package ratelog_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/internal/ratelog"
)

func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	buf.Reset()
	return out
}

// TestFailures: 8 failures a second for two minutes log one line at once
// and one a minute after, counting them; a success logs the recovery
// once; a new episode is logged at once again.
func TestFailures(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	var f ratelog.Failures
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	if f.OK(log, now, "back") {
		t.Error("a success before any failure logged")
	}
	logged := 0
	for range 8 * 120 {
		if f.Fail(log, now, "chain down", "err", "connection refused") {
			logged++
		}
		now = now.Add(time.Second / 8)
	}
	got := lines(t, &buf)
	if logged != 2 || len(got) != 2 {
		t.Fatalf("%d lines (%d reported) for 960 failures over 2 minutes, want 2: %v", len(got), logged, got)
	}
	if got[0]["level"] != "WARN" || got[0]["msg"] != "chain down" || got[0]["err"] != "connection refused" || got[0]["failures"] != nil {
		t.Errorf("first line %v", got[0])
	}
	if got[1]["failures"] != 481.0 || got[1]["since"] != t0.Format(time.RFC3339) {
		t.Errorf("repeat %v: want 481 failures since %s", got[1], t0.Format(time.RFC3339))
	}
	if !f.OK(log, now, "back", "what", "chain") || f.OK(log, now, "back") {
		t.Error("recovery not logged exactly once")
	}
	got = lines(t, &buf)
	if len(got) != 1 || got[0]["level"] != "INFO" || got[0]["failures"] != 960.0 || got[0]["for"] != "2m0s" || got[0]["what"] != "chain" {
		t.Errorf("recovery %v", got)
	}
	if !f.Fail(log, now, "chain down") {
		t.Error("a new episode's first failure not logged")
	}
}
