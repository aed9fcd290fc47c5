// Package golden compares generated test vectors with the files in spec/vectors, or rewrites
// them when LEDGER_UPDATE_VECTORS=1 (make vectors). One place for the rule, so every vector
// test drifts loudly in the same way.
package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// UpdateEnv names the environment variable that makes vector tests rewrite their files.
const UpdateEnv = "LEDGER_UPDATE_VECTORS"

// VectorPath returns the path of spec/vectors/name in this repository.
func VectorPath(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "spec", "vectors", name)
}

// CheckJSON marshals v with two-space indentation and compares it with
// spec/vectors/name byte for byte (or rewrites the file under UpdateEnv). It returns the
// file's bytes so the caller can also check the file-to-code direction.
func CheckJSON(t testing.TB, name string, v any) []byte {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := VectorPath(name)
	if os.Getenv(UpdateEnv) == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (run `make vectors` once to create it): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from what this code generates. If a format or generator changed on purpose, bump its version, update spec/ and run `make vectors`.", path)
	}
	return want
}
