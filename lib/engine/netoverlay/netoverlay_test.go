package netoverlay

import (
	"testing"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/engine/core"
)

// TestNodeIPs: addresses follow spec order from 10.0.0.1, carry past .255,
// and map back to their node; other addresses are no node's.
func TestNodeIPs(t *testing.T) {
	tests := []struct {
		idx  int
		want [4]byte
	}{
		{0, [4]byte{10, 0, 0, 1}},
		{1, [4]byte{10, 0, 0, 2}},
		{254, [4]byte{10, 0, 0, 255}},
		{255, [4]byte{10, 0, 1, 0}},
		{70000, [4]byte{10, 1, 17, 113}},
	}
	for _, tt := range tests {
		if got := NodeIP(tt.idx); got != tt.want {
			t.Errorf("NodeIP(%d) = %v, want %v", tt.idx, got, tt.want)
		}
		if got := NodeOfIP(tt.want, tt.idx+1); got != tt.idx {
			t.Errorf("NodeOfIP(%v) = %d, want %d", tt.want, got, tt.idx)
		}
	}
	for _, ip := range [][4]byte{{10, 0, 0, 0}, {10, 0, 0, 4}, {127, 0, 0, 1}, {192, 168, 0, 1}, {9, 255, 255, 255}} {
		if got := NodeOfIP(ip, 3); got != -1 {
			t.Errorf("NodeOfIP(%v) among 3 nodes = %d, want -1", ip, got)
		}
	}
}

func TestDialPorts(t *testing.T) {
	for _, tt := range []struct {
		id   uint64
		want uint32
	}{{1, 49153}, {2, 49154}, {16383, 65535}, {16384, 49152}} {
		if got := DialPort(tt.id); got != tt.want {
			t.Errorf("DialPort(%d) = %d, want %d", tt.id, got, tt.want)
		}
	}
}

func TestHostsFile(t *testing.T) {
	got := string(HostsFile([]string{"primary", "backup", "client"}))
	want := "# Written by sf for net_overlay: every program of the world by name.\n" +
		"127.0.0.1\tlocalhost\n10.0.0.1\tprimary\n10.0.0.2\tbackup\n10.0.0.3\tclient\n"
	if got != want {
		t.Errorf("HostsFile:\n%s\nwant:\n%s", got, want)
	}
}

func readDiskFile(t *testing.T, fs *disk.FS, path string) string {
	t.Helper()
	ino, err := fs.Lookup(fs.Root(), path, true)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	buf := make([]byte, 4096)
	n, err := fs.ReadAt(ino, buf, 0)
	if err != nil && n == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	return string(buf[:n])
}

// TestSeedNetOverlay: every disk gets the hosts file and nsswitch.conf,
// durable; a seeded hosts file keeps its lines after ours, and a seeded
// nsswitch.conf is the user's.
func TestSeedNetOverlay(t *testing.T) {
	hosts := string(HostsFile([]string{"server", "client"}))
	tests := []struct {
		name                    string
		seed                    []core.SeedFile
		wantHosts, wantNsswitch string
	}{
		{"plain disk", nil, hosts, nsswitchFile},
		{"seeded files", []core.SeedFile{
			{Path: "etc/hosts", Data: []byte("10.9.9.9\tdb.internal\n")},
			{Path: "etc/nsswitch.conf", Data: []byte("hosts: files dns\n")},
		}, hosts + "# Seeded with the node's disk:\n10.9.9.9\tdb.internal\n", "hosts: files dns\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := disk.New(func() int64 { return 0 })
			for _, f := range SeedFiles([]string{"server", "client"}, tt.seed) {
				if err := fs.AddFile(f.Path, f.Data); err != nil {
					t.Fatal(err)
				}
			}
			if got := readDiskFile(t, fs, "etc/hosts"); got != tt.wantHosts {
				t.Errorf("/etc/hosts:\n%s\nwant:\n%s", got, tt.wantHosts)
			}
			if got := readDiskFile(t, fs, "etc/nsswitch.conf"); got != tt.wantNsswitch {
				t.Errorf("/etc/nsswitch.conf: %q, want %q", got, tt.wantNsswitch)
			}
			for _, f := range fs.Files() {
				if f.PendingBytes != 0 {
					t.Errorf("%s has %d bytes a crash would lose", f.Path, f.PendingBytes)
				}
			}
		})
	}
}
