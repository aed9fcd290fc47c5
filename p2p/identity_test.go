package p2p

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
)

func TestIdentityPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p2p", "identity.key")
	k1, err := LoadIdentity(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode %04o, want 0600", fi.Mode().Perm())
	}
	k2, err := LoadIdentity(path)
	if err != nil {
		t.Fatal(err)
	}
	if !k1.Equals(k2) {
		t.Fatal("a second load gave another identity")
	}
	if k1.Type() != crypto.Ed25519 {
		t.Fatalf("key type %s", k1.Type())
	}
}

func TestIdentityRefusals(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.key")
	k, _, _ := crypto.GenerateEd25519Key(rand.Reader)
	data, _ := crypto.MarshalPrivateKey(k)
	if err := os.WriteFile(open, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o644)
	if _, err := LoadIdentity(open); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("world-readable identity: err = %v", err)
	}
	ecdsa := filepath.Join(dir, "ecdsa.key")
	ek, _, _ := crypto.GenerateECDSAKeyPair(rand.Reader)
	edata, _ := crypto.MarshalPrivateKey(ek)
	os.WriteFile(ecdsa, edata, 0o600)
	if _, err := LoadIdentity(ecdsa); err == nil || !strings.Contains(err.Error(), "Ed25519") {
		t.Errorf("ECDSA identity: err = %v", err)
	}
	junk := filepath.Join(dir, "junk.key")
	os.WriteFile(junk, []byte("junk"), 0o600)
	if _, err := LoadIdentity(junk); err == nil {
		t.Error("junk identity loaded")
	}
}
