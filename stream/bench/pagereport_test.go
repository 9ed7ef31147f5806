package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadPageReporting reads a machine's page reporting from a made-up
// sysfs and procfs: on only with a balloon that offers it and an order the
// kernel's blocks reach.
func TestReadPageReporting(t *testing.T) {
	const (
		features  = "sys/bus/virtio/drivers/virtio_balloon/virtio0/features"
		order     = "sys/module/page_reporting/parameters/page_reporting_order"
		buddyinfo = "proc/buddyinfo"
		reporting = "0110010100000000000000000000000010000000" // bit 5 set, as on the bench's machine
		noReport  = "0110000100000000000000000000000010000000"
		buddy     = "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n" +
			"Node 0, zone    DMA32      1      2      4      2      5      4      3      3      4      2    752 \n"
	)
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"bare metal", nil, "-"},
		{"balloon without reporting", map[string]string{features: noReport, order: "9\n", buddyinfo: buddy}, "-"},
		{"reporting", map[string]string{features: reporting, order: "9\n", buddyinfo: buddy}, "9"},
		{"order above the largest block", map[string]string{features: reporting, order: "11\n", buddyinfo: buddy}, "off"},
		{"order at the largest block", map[string]string{features: reporting, order: "10\n", buddyinfo: buddy}, "10"},
		{"no buddyinfo: the x86-64 default of 10", map[string]string{features: reporting, order: "10\n"}, "10"},
		{"no buddyinfo, above the default", map[string]string{features: reporting, order: "11\n"}, "off"},
		{"no order", map[string]string{features: reporting, buddyinfo: buddy}, "unknown"},
		{"order not a number", map[string]string{features: reporting, order: "nine\n", buddyinfo: buddy}, "unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range c.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := ReadPageReporting(root).String(); got != c.want {
				t.Errorf("ReadPageReporting = %q, want %q", got, c.want)
			}
		})
	}
}
