package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/p2p"
)

// Status is what `ledger peers` shows: the node, its peers, and the head of
// every chain it stores. Its JSON field names are part of the CLI's
// documented interface.
type Status struct {
	PeerID    string          `json:"peer_id"`
	Addrs     []string        `json:"addrs"`
	NetUID    uint16          `json:"netuid"`
	Validator *keys.PublicKey `json:"validator,omitempty"`
	Peers     []p2p.PeerInfo  `json:"peers"`
	Heads     []HeadInfo      `json:"heads"`
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
	if st.Peers == nil {
		st.Peers = []p2p.PeerInfo{}
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

// writeStatus replaces status.json atomically (write, sync, rename), so a
// reader never sees half a file.
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

// ReadStatusFile reads the status file of the node running on dataDir.
func ReadStatusFile(dataDir string) (Status, error) {
	var st Status
	data, err := os.ReadFile(StatusFile(dataDir))
	if errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("no status file in %s: is a node running on this data directory? (%w)", dataDir, err)
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
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
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 16<<20)).Decode(&st); err != nil {
		return st, fmt.Errorf("status endpoint %s: %w", addr, err)
	}
	return st, nil
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
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := n.Err(); err != nil {
			http.Error(w, "a service stopped: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
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
