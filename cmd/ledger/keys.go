package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/affine-ledger/ledger/keys"
)

// maxMnemonicBytes bounds a mnemonic read from stdin or a file: 24 words of
// at most 8 letters, with room for stray whitespace.
const maxMnemonicBytes = 4 << 10

// keyInfo is the --json output of the keys commands; its field names are
// part of the CLI's documented interface. It never holds a secret.
type keyInfo struct {
	SS58      string `json:"ss58"`
	PublicKey string `json:"public_key"`
	File      string `json:"file"`
}

func newKeysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, import and show validator hotkeys",
		Long: `A validator signs with a Bittensor-compatible sr25519 hotkey (SS58 prefix 42) kept in
a key file: JSON with mode 0600 holding the key's secret seed (spec/signatures.md).
These commands create, import and inspect key files. None of them prints a secret,
and none overwrites an existing key file without --force.` + exitCodesHelp,
		Example: `  ledger keys new --out ~/.ledger/hotkey.json
  ledger keys import --btcli ~/.bittensor/wallets/default/hotkeys/default --out ~/.ledger/hotkey.json
  ledger keys show --key ~/.ledger/hotkey.json --json`,
	}
	cmd.AddCommand(newKeysNewCmd(), newKeysShowCmd(), newKeysImportCmd())
	return cmd
}

func newKeysNewCmd() *cobra.Command {
	var (
		out           string
		force, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "new",
		Short: "Generate a new random hotkey into a key file",
		Long: `Generates a random sr25519 hotkey and writes it to a new key file with mode 0600
(parent directories are created with mode 0700), then prints its address and public
key. The key file is the only copy of the secret: back it up. To use an existing
Bittensor hotkey instead, see "ledger keys import".` + exitCodesHelp,
		Example: `  ledger keys new --out ~/.ledger/hotkey.json
  ledger keys new --out hotkey.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkKeyOut(out); err != nil {
				return err
			}
			k, err := keys.Generate()
			if err != nil {
				return err
			}
			replaced, err := writeKey(out, k, force)
			if err != nil {
				return err
			}
			if replaced {
				fmt.Fprintf(cmd.ErrOrStderr(), "replaced the key file %s with a new key (mode 0600); the key it held is gone, and the new file is the only copy of the new secret\n", out)
			} else {
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote a new key file %s (mode 0600); it is the only copy of the secret\n", out)
			}
			return printKey(cmd, k, out, asJSON)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "key file to create (required)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing file at --out")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {ss58, public_key, file}")
	cmd.MarkFlagRequired("out")
	return cmd
}

func newKeysShowCmd() *cobra.Command {
	var (
		path   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the address and public key of a key file",
		Long: `Loads a key file and prints its SS58 address and public key, never the secret.
Loading fails if the file is readable or writable by group or others, or if its
address or public key does not belong to its secret seed.` + exitCodesHelp,
		Example: `  ledger keys show --key ~/.ledger/hotkey.json
  ledger keys show --key hotkey.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmpty(cmd, "key"); err != nil {
				return err
			}
			k, err := keys.ReadKeyFile(path)
			if err != nil {
				return err
			}
			return printKey(cmd, k, path, asJSON)
		},
	}
	cmd.Flags().StringVar(&path, "key", "", "key file to read (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {ss58, public_key, file}")
	cmd.MarkFlagRequired("key")
	return cmd
}

func newKeysImportCmd() *cobra.Command {
	var (
		out, btcli, mnemonicFile, uri string
		passwordFile, passwordInArgv  string
		force, asJSON                 bool
	)
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import a hotkey from a btcli wallet, a mnemonic or a dev URI into a key file",
		Long: `Writes a key file (mode 0600) for an existing hotkey, taken from exactly one of:

  --btcli FILE          a btcli wallet hotkey file (~/.bittensor/wallets/<wallet>/hotkeys/<name>);
                        its secretSeed is used if present, else its secretPhrase, and the
                        derived address must match its ss58Address
  --mnemonic-file FILE  a file holding a BIP39 English mnemonic, optionally followed by
                        ///PASSWORD (Substrate's secret URI form for a mnemonic password)
  --uri URI             a development key such as //Alice, derived from Substrate's public
                        development phrase: anyone can sign with it, so use it only for
                        tests and devnets (no ///password: that would make it a secret)
  (none of these)       a mnemonic, optionally followed by ///PASSWORD, read from standard
                        input (not echoed on a terminal)

A mnemonic with a password (as subkey and polkadot.js derive it) is imported either with
the password after the phrase (phrase///PASSWORD) or with --password-file FILE, whose
content is the password (one final line end removed). The password is used byte for
byte. A mnemonic or a password is never taken as a flag value, which would keep it in
the shell history and show it in the process list. Encrypted btcli files (coldkeys,
usually) are not supported.` + exitCodesHelp,
		Example: `  ledger keys import --btcli ~/.bittensor/wallets/default/hotkeys/default --out ~/.ledger/hotkey.json
  ledger keys import --mnemonic-file phrase.txt --out hotkey.json --json
  ledger keys import --out hotkey.json < phrase.txt
  ledger keys import --mnemonic-file phrase.txt --password-file password.txt --out hotkey.json
  ledger keys import --uri //Alice --out alice.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Before the key is read: a mnemonic typed in is not asked
			// for in vain.
			if err := checkKeyOut(out); err != nil {
				return err
			}
			if cmd.Flags().Changed("password") {
				// The value is not repeated: it is a secret.
				return usageError{"--password: a password is never taken as a flag value (it would stay in the shell history and show in the process list); give --password-file FILE, or end the mnemonic with ///PASSWORD in its file or on standard input"}
			}
			password, err := readPasswordFile(passwordFile)
			if err != nil {
				return err
			}
			var k *keys.Hotkey
			switch {
			case btcli != "":
				k, err = keys.ReadBtcliFile(btcli)
			case mnemonicFile != "":
				k, err = mnemonicFromFile(mnemonicFile, password)
			case uri != "":
				k, err = devKey(cmd, uri)
			default:
				k, err = mnemonicFromStdin(cmd, password)
			}
			if err != nil {
				return err
			}
			replaced, err := writeKey(out, k, force)
			if err != nil {
				return err
			}
			if replaced {
				fmt.Fprintf(cmd.ErrOrStderr(), "replaced the key file %s (mode 0600); the key it held is gone\n", out)
			} else {
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote key file %s (mode 0600)\n", out)
			}
			return printKey(cmd, k, out, asJSON)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "key file to create (required)")
	cmd.Flags().StringVar(&btcli, "btcli", "", "btcli wallet hotkey file to import")
	cmd.Flags().StringVar(&mnemonicFile, "mnemonic-file", "", "file holding the mnemonic to import")
	cmd.Flags().StringVar(&uri, "uri", "", "development key URI such as //Alice (public: tests and devnets only)")
	cmd.Flags().StringVar(&passwordFile, "password-file", "", "file holding the mnemonic's password (with --mnemonic-file or standard input)")
	cmd.Flags().StringVar(&passwordInArgv, "password", "", "refused: give --password-file or ///PASSWORD after the mnemonic")
	cmd.Flags().MarkHidden("password")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing file at --out")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {ss58, public_key, file}")
	cmd.MarkFlagRequired("out")
	cmd.MarkFlagsMutuallyExclusive("btcli", "mnemonic-file", "uri")
	cmd.MarkFlagsMutuallyExclusive("btcli", "password-file")
	cmd.MarkFlagsMutuallyExclusive("uri", "password-file")
	return cmd
}

// checkKeyOut refuses an --out that cannot be a key file: an empty path,
// or a directory (--force would not replace it either).
func checkKeyOut(path string) error {
	if path == "" {
		return usageError{"--out: give the key file's path"}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageError{fmt.Sprintf("--out %s: is a directory; name the key file", path)}
	}
	return nil
}

// writeKey writes k to path, replacing a file there only with force, and
// reports whether it replaced one: the operator must hear that a secret
// was thrown away, not that a file was written.
func writeKey(path string, k *keys.Hotkey, force bool) (replaced bool, err error) {
	// Looked at before the write: with force, the file is gone after it.
	_, statErr := os.Lstat(path)
	existed := statErr == nil
	err = keys.WriteKeyFile(path, k, force)
	if errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("%w (pass --force to replace it)", err)
	}
	if errors.Is(err, keys.ErrNoHardLinks) {
		return false, fmt.Errorf("%w (write the key file on another file system and move it, or, if nothing is at %s, pass --force, which only renames)", err, path)
	}
	return err == nil && existed, err
}

func printKey(cmd *cobra.Command, k *keys.Hotkey, file string, asJSON bool) error {
	pub := k.Public()
	info := keyInfo{SS58: pub.SS58(), PublicKey: "0x" + hex.EncodeToString(pub[:]), File: file}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), info)
	}
	_, err := fmt.Fprintf(cmd.OutOrStdout(), "ss58:       %s\npublic_key: %s\nfile:       %s\n", info.SS58, info.PublicKey, info.File)
	return err
}

// mnemonicFromFile reads "phrase" or "phrase///password" from path;
// password, if not nil, is --password-file's.
func mnemonicFromFile(path string, password *string) (*keys.Hotkey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read mnemonic: %w", err)
	}
	defer f.Close()
	text, err := readLimited(f)
	if err != nil {
		return nil, fmt.Errorf("mnemonic file %s: %w", path, err)
	}
	k, err := mnemonicKey(text, password)
	if err != nil {
		return nil, fmt.Errorf("mnemonic file %s: %w", path, err)
	}
	return k, nil
}

// mnemonicKey derives the key of "phrase" or "phrase///password" (one
// final line end of the password removed), with password, if not nil, as
// the password: one password, not both.
func mnemonicKey(text string, password *string) (*keys.Hotkey, error) {
	phrase, inline, ok := keys.SplitPassword(text)
	switch {
	case ok && password != nil:
		return nil, usageError{"two passwords: the mnemonic ends with ///PASSWORD and --password-file gives one; keep one"}
	case ok:
		return keys.FromMnemonicPassword(phrase, trimLineEnd(inline))
	case password != nil:
		return keys.FromMnemonicPassword(phrase, *password)
	}
	return keys.FromMnemonic(phrase)
}

// readPasswordFile returns the content of --password-file without one
// final line end, or nil without the flag. An empty password is refused:
// a file left empty by mistake would import another key without a word.
func readPasswordFile(path string) (*string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read password: %w", err)
	}
	defer f.Close()
	text, err := readLimited(f)
	if err != nil {
		return nil, fmt.Errorf("password file %s: %w", path, err)
	}
	password := trimLineEnd(text)
	if password == "" {
		return nil, usageError{fmt.Sprintf("--password-file %s is empty; leave the flag out for a mnemonic without a password", path)}
	}
	return &password, nil
}

// trimLineEnd removes one final "\n" or "\r\n", which editors and echo
// add; any other whitespace is part of the password.
func trimLineEnd(s string) string {
	if s, ok := strings.CutSuffix(s, "\n"); ok {
		return strings.TrimSuffix(s, "\r")
	}
	return s
}

// mnemonicFromStdin reads "phrase" or "phrase///password" without echo
// from a terminal, or whole from a pipe or file; password, if not nil, is
// --password-file's.
func mnemonicFromStdin(cmd *cobra.Command, password *string) (*keys.Hotkey, error) {
	var (
		phrase string
		err    error
	)
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(cmd.ErrOrStderr(), "mnemonic, with ///PASSWORD after it if it has one (input is not shown), then Enter: ")
		var b []byte
		b, err = term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		phrase = string(b)
	} else {
		phrase, err = readLimited(in)
	}
	if err != nil {
		return nil, fmt.Errorf("read mnemonic from standard input: %w", err)
	}
	if strings.TrimSpace(phrase) == "" {
		return nil, usageError{"no mnemonic on standard input: pipe one in, or give --btcli, --mnemonic-file or --uri"}
	}
	k, err := mnemonicKey(phrase, password)
	if err != nil {
		return nil, fmt.Errorf("mnemonic from standard input: %w", err)
	}
	return k, nil
}

func readLimited(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxMnemonicBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxMnemonicBytes {
		return "", fmt.Errorf("longer than %d bytes: not a mnemonic", maxMnemonicBytes)
	}
	return string(b), nil
}

// devKey derives a development key. Only URIs that start with a junction
// and hold no password are taken: they derive from the public development
// phrase alone, so no secret ever sits in a flag value (or in the warning,
// which quotes the URI).
func devKey(cmd *cobra.Command, uri string) (*keys.Hotkey, error) {
	if !strings.HasPrefix(uri, "/") {
		return nil, usageError{"--uri takes only development keys such as //Alice; import a real mnemonic with --mnemonic-file or on standard input"}
	}
	if strings.Contains(uri, "///") {
		return nil, usageError{"--uri: a password (///...) would make the key a secret, and a flag value is no place for one; --uri takes only development keys such as //Alice"}
	}
	k, err := keys.FromURI(uri)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s is derived from the public development phrase: anyone can sign as %s. Use it only for tests and devnets.\n", uri, k.Public().Short())
	return k, nil
}
