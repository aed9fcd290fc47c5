package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p"
)

// Status is what `ledger peers` shows: the node, its peers, and the head of
// every chain it stores. Its JSON field names are part of the CLI's
// documented interface.
type Status struct {
	PeerID string   `json:"peer_id"`
	Addrs  []string `json:"addrs"`
	NetUID uint16   `json:"netuid"`
	// Genesis is the genesis hash of the chain the store's network is
	// of; absent while the store has no network (an observer before its
	// first block).
	Genesis   *record.Hash    `json:"genesis,omitempty"`
	Validator *keys.PublicKey `json:"validator,omitempty"`
	Peers     []p2p.PeerInfo  `json:"peers"`
	// StaticPeersDown are the static peers (--peer) not connected now,
	// with the last dial's error: Peers lists connected peers only, and
	// a static peer that cannot be reached would not show at all.
	StaticPeersDown []p2p.StaticPeerInfo `json:"static_peers_down"`
	Heads           []HeadInfo           `json:"heads"`
	// ForkProofs counts the stored fork proofs.
	ForkProofs int       `json:"fork_proofs"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// HeadInfo is one chain's head.
type HeadInfo struct {
	Validator    keys.PublicKey `json:"validator"`
	Height       uint64         `json:"height"`
	CID          string         `json:"cid"`
	Transcripts  uint64         `json:"transcripts"`
	TimeMS       int64          `json:"time_ms"`
	Equivocating bool           `json:"equivocating,omitempty"`
}

// Status describes the node now.
func (n *Node) Status() (Status, error) {
	st := Status{PeerID: n.net.ID().String(), NetUID: n.cfg.NetUID, Peers: n.net.Peers(), Heads: []HeadInfo{}, UpdatedAt: time.Now().UTC()}
	for _, a := range n.net.AddrInfo().Addrs {
		st.Addrs = append(st.Addrs, a.String()+"/p2p/"+st.PeerID)
	}
	if v, ok := n.Validator(); ok {
		st.Validator = &v
	}
	if net := n.store.Network(); !net.IsZero() {
		st.Genesis = &net.Genesis
	}
	if st.Peers == nil {
		st.Peers = []p2p.PeerInfo{}
	}
	if st.StaticPeersDown = n.net.StaticPeersDown(); st.StaticPeersDown == nil {
		st.StaticPeersDown = []p2p.StaticPeerInfo{}
	}
	for h, err := range n.store.Heads() {
		if err != nil {
			return Status{}, err
		}
		st.Heads = append(st.Heads, HeadInfo{
			Validator: h.Block.Validator, Height: h.Block.Height, CID: h.Block.CID.String(),
			Transcripts: h.Checkpoint.Size, TimeMS: h.TimeMS, Equivocating: h.Equivocating,
		})
	}
	for _, err := range n.store.ForkProofs() {
		if err != nil {
			return Status{}, err
		}
		st.ForkProofs++
	}
	return st, nil
}

// writeStatusLoop rewrites status.json until the node closes.
func (n *Node) writeStatusLoop() {
	defer n.bg.Done()
	t := time.NewTicker(n.cfg.StatusEvery)
	defer t.Stop()
	n.writeStatus()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
			n.writeStatus()
		}
	}
}

// writeStatus replaces status.json atomically (write, rename), so a
// reader never sees half a file. It is not synced: after a power loss the
// file may be empty or old, which tells nothing wrong about a node that is
// not running, and a running one writes it again every StatusEvery.
func (n *Node) writeStatus() {
	st, err := n.Status()
	if err != nil {
		n.log.Warn("node: status", "err", err)
		return
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		n.log.Warn("node: status", "err", err)
		return
	}
	if len(data)+1 > MaxStatusBytes {
		// Written anyway, for other readers; `ledger peers` refuses it.
		n.log.Warn("node: status file larger than ledger peers reads", "bytes", len(data)+1, "max", MaxStatusBytes)
	}
	path := StatusFile(n.cfg.DataDir)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".status-*.tmp")
	if err != nil {
		n.log.Warn("node: status file", "err", err)
		return
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		n.log.Warn("node: status file", "err", err)
	}
}

// MaxStatusBytes bounds a status as `ledger peers` reads it, from the
// status file or the status endpoint. A status takes about 300 bytes per
// chain head and 490 per peer (indented JSON, two addresses and a genesis
// hash a peer): 1,024 heads, as many as a sync status carries
// (wire.MaxHeads), and 1,000 peers are 808 KB. An observer that accepts every validator stores as many
// chains as peers send it, and its operator looks at its status most when
// that count is surprising: the bound leaves room for some 12,000 chains
// beside 1,000 peers.
const MaxStatusBytes = 4 << 20

// ReadStatusFile reads the status file of the node running on dataDir.
func ReadStatusFile(dataDir string) (Status, error) {
	var st Status
	f, err := os.Open(StatusFile(dataDir))
	if errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("no status file in %s: is a node running on this data directory? (%w)", dataDir, err)
	}
	if err != nil {
		return st, err
	}
	defer f.Close()
	if st, err = readStatus(f); err != nil {
		return st, fmt.Errorf("status file %s: %w", StatusFile(dataDir), err)
	}
	return st, nil
}

// FetchStatus queries a node's status endpoint at addr (host:port).
func FetchStatus(ctx context.Context, addr string) (Status, error) {
	var st Status
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/status", nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, fmt.Errorf("status endpoint %s: %w", addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("status endpoint %s: HTTP %s", addr, resp.Status)
	}
	if st, err = readStatus(resp.Body); err != nil {
		return st, fmt.Errorf("status endpoint %s: %w", addr, err)
	}
	return st, nil
}

// readStatus reads one status of at most MaxStatusBytes: a JSON object and
// nothing after it but white space.
func readStatus(r io.Reader) (Status, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxStatusBytes+1))
	if err != nil {
		return Status{}, err
	}
	if len(data) > MaxStatusBytes {
		return Status{}, fmt.Errorf("more than %d bytes", MaxStatusBytes)
	}
	var st Status
	err = json.Unmarshal(data, &st)
	return st, err
}

// serveStatus serves /status and /metrics on a loopback address.
func (n *Node) serveStatus(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("status address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("status address %q: must be a loopback address (the status endpoint has no authentication)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("status endpoint: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		st, err := n.Status()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(st)
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(n.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("GET /healthz", n.healthz)
	if n.cfg.Handler != nil {
		h, err := n.cfg.Handler(n)
		if err != nil {
			ln.Close()
			return fmt.Errorf("status endpoint: %w", err)
		}
		mux.Handle("/", h)
	}
	n.statusLn = ln
	n.http = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go n.http.Serve(ln)
	return nil
}

// StatusAddr returns the address the status endpoint listens on, "" if
// none.
func (n *Node) StatusAddr() string {
	if n.statusLn == nil {
		return ""
	}
	return n.statusLn.Addr().String()
}
