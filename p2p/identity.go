package p2p

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/libp2p/go-libp2p/core/crypto"
)

// maxIdentityBytes bounds an identity file: an ed25519 key in libp2p's
// protobuf encoding is 68 bytes.
const maxIdentityBytes = 4 << 10

// LoadIdentity reads the node's libp2p identity from path, creating a new
// ed25519 key there (mode 0600, parent directory 0700) if the file does not
// exist. It refuses a file that group or others may access and any key that
// is not ed25519. The identity is what peers know the node by; its binding to
// the validator's hotkey is signed afresh at every start.
func LoadIdentity(path string) (crypto.PrivKey, error) {
	data, err := readIdentity(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createIdentity(path)
	}
	if err != nil {
		return nil, err
	}
	k, err := crypto.UnmarshalPrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("node identity %s: %w", path, err)
	}
	if k.Type() != crypto.Ed25519 {
		return nil, fmt.Errorf("node identity %s: key type %s, want Ed25519", path, k.Type())
	}
	return k, nil
}

func readIdentity(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("node identity %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("node identity %s has mode %04o: group or others may access it; run chmod 600 %s if it is still secret", path, fi.Mode().Perm(), path)
	}
	if fi.Size() > maxIdentityBytes {
		return nil, fmt.Errorf("node identity %s: %d bytes, max %d: not a key", path, fi.Size(), maxIdentityBytes)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("node identity %s: %w", path, err)
	}
	return data, nil
}

// createIdentity writes a new key whole or not at all: a synced temporary
// file linked into place, so a crash leaves no truncated identity and two
// starts racing cannot both win.
func createIdentity(path string) (crypto.PrivKey, error) {
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("node identity: %w", err)
	}
	data, err := crypto.MarshalPrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("node identity: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("node identity %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".identity-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("node identity %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		// Another start created it first: use that one.
		return LoadIdentity(path)
	}
	if err != nil {
		return nil, fmt.Errorf("node identity %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return k, nil
}
