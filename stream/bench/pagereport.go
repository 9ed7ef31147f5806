package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PageReporting says whether this machine's kernel hands free memory back
// to its host: a virtual machine whose virtio-balloon device offers free page
// reporting, with the kernel's page_reporting_order (the smallest block, in
// pages of 2^order, it reports) no larger than the largest block it keeps.
// On the 2-core machine of BENCHMARKS.md the latency mode's tail and the
// broker's CPU a record moved with it (BENCHMARKS.md, "Latency"), so the
// bench prints it beside its figures.
type PageReporting struct {
	Offered bool // the machine has a virtio balloon that offers free page reporting
	On      bool // and the kernel reports: Order is at most the largest block order
	Order   int  // page_reporting_order; -1 if it could not be read
}

// String is the summary's value: the order when on, "off", "unknown" when
// the balloon offers reporting but the order cannot be read, or "-" when the
// machine has no such balloon (bare metal, another hypervisor, not Linux).
func (r PageReporting) String() string {
	switch {
	case !r.Offered:
		return "-"
	case r.Order < 0:
		return "unknown"
	case !r.On:
		return "off"
	}
	return strconv.Itoa(r.Order)
}

// virtioBalloonReporting is VIRTIO_BALLOON_F_REPORTING, the feature bit of a
// balloon that takes free page reports (the virtio specification, 5.5.3).
const virtioBalloonReporting = 5

// ReadPageReporting reads PageReporting from the files under root ("/" for
// this machine): the balloon's feature bits in sysfs (a string of '0' and
// '1', bit 0 first), the page_reporting module's order, and /proc/buddyinfo,
// whose columns are the block orders the kernel keeps.
func ReadPageReporting(root string) PageReporting {
	var r PageReporting
	feats, _ := filepath.Glob(filepath.Join(root, "sys/bus/virtio/drivers/virtio_balloon/*/features"))
	for _, f := range feats {
		if b, err := os.ReadFile(f); err == nil && len(b) > virtioBalloonReporting && b[virtioBalloonReporting] == '1' {
			r.Offered = true
		}
	}
	if !r.Offered {
		return r
	}
	b, err := os.ReadFile(filepath.Join(root, "sys/module/page_reporting/parameters/page_reporting_order"))
	if err == nil {
		r.Order, err = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if err != nil || r.Order < 0 {
		return PageReporting{Offered: true, Order: -1}
	}
	r.On = r.Order <= maxBlockOrder(root)
	return r
}

// maxBlockOrder is the largest order of the free blocks /proc/buddyinfo
// counts ("Node 0, zone Normal n0 n1 … n10": 10); 10, the x86-64 default,
// if it cannot be read.
func maxBlockOrder(root string) int {
	b, err := os.ReadFile(filepath.Join(root, "proc/buddyinfo"))
	if err != nil {
		return 10
	}
	line, _, _ := strings.Cut(string(b), "\n")
	_, counts, ok := strings.Cut(line, "zone")
	if f := strings.Fields(counts); ok && len(f) > 2 {
		return len(f) - 2 // the zone's name, then one count for each order from 0
	}
	return 10
}
