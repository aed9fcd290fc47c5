package main

import (
	"fmt"
	"net"
)

// checkLoopback refuses an address flag (node --status, devnet --explorer,
// chain serve --listen) that is not host:port on a loopback host: what it
// serves has no authentication. Checked before the command starts
// anything, so that a refused address leaves nothing behind (the node
// package checks it again, but only once the data directory exists).
func checkLoopback(flag, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Sprintf("%s %s: %v", flag, addr, err)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageError{fmt.Sprintf("%s %s: must be a loopback address such as 127.0.0.1:8080 (what it serves has no authentication)", flag, addr)}
	}
	return nil
}
