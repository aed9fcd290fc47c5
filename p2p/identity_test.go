package p2p

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
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

// TestIdentityFileSizeBound: an identity file of exactly maxIdentityBytes
// is read and its key loaded; one of a byte more is refused before it is
// read, naming the bound. The key is padded with a protobuf field libp2p
// does not know, which its decoder skips.
func TestIdentityFileSizeBound(t *testing.T) {
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.MarshalPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	file := func(size int) string {
		// Field 15, length-delimited, whose 2-byte length covers the rest.
		pad := size - len(key) - 3
		data := binary.AppendUvarint(append(bytes.Clone(key), 15<<3|2), uint64(pad))
		data = append(data, make([]byte, pad)...)
		if len(data) != size {
			t.Fatalf("identity file of %d bytes, want %d", len(data), size)
		}
		path := filepath.Join(t.TempDir(), "identity.key")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	got, err := LoadIdentity(file(maxIdentityBytes))
	if err != nil {
		t.Fatalf("identity file of exactly %d bytes: %v", maxIdentityBytes, err)
	}
	if !got.Equals(k) {
		t.Fatal("the padded identity file loaded another key")
	}
	_, err = LoadIdentity(file(maxIdentityBytes + 1))
	if want := fmt.Sprintf("%d bytes, max %d", maxIdentityBytes+1, maxIdentityBytes); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("identity file of %d bytes: err = %v, want one naming %q", maxIdentityBytes+1, err, want)
	}
}
