package inference

import (
	"errors"
	"testing"
)

func TestPublicOnlyAddresses(t *testing.T) {
	for addr, public := range map[string]bool{
		"8.8.8.8:443": true, "1.1.1.1:80": true, "[2606:4700:4700::1111]:443": true, "93.184.215.14:443": true,
		"127.0.0.1:80": false, "127.8.9.10:80": false, "[::1]:80": false, "0.0.0.0:80": false, "[::]:80": false,
		"10.1.2.3:80": false, "172.16.0.1:80": false, "172.31.255.255:80": false, "192.168.1.1:80": false, "[fd00::1]:80": false,
		"169.254.169.254:80": false, "[fe80::1]:80": false, "100.64.0.1:80": false, "224.0.0.1:80": false, "[ff02::1]:80": false,
		"192.0.2.10:80": false, "198.18.0.1:80": false, "240.0.0.1:80": false, "255.255.255.255:80": false,
		"[::ffff:127.0.0.1]:80": false, "[::ffff:8.8.8.8]:443": true, "[2001:db8::1]:80": false,
		"not an address": false,
	} {
		err := publicOnly("tcp", addr, nil)
		if (err == nil) != public || err != nil && !errors.Is(err, ErrNotPublic) {
			t.Errorf("%s: %v, want public %v", addr, err, public)
		}
	}
}
