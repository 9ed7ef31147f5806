package main

import (
	"os"

	"github.com/dedupstream/dedupstream/stream/bench"
)

// fleetOptions are the fleet mode's: o.fleet.Instances "dedupstream run"
// processes of one group (bench.RunCommand) with o.fleet.Shards index shards
// (0 is the single-instance index, for one instance), each pinned to CPU
// i mod o.fleet.Pin when that is positive. Their brokers are at addr.
func fleetOptions(o benchOptions, src *bench.Source, addr string) (bench.FleetOptions, error) {
	exe, err := os.Executable()
	fo := o.fleet
	fo.Docs, fo.Partitions, fo.Src = o.Docs, o.Partitions, src
	fo.LatencyDocs, fo.Rate, fo.Settle = o.LatencyDocs, o.Rate, o.pipes.Settle
	fo.Command = bench.RunCommand{Exe: exe, Addr: addr, Config: o.config, CPUProfile: o.pipes.Profiles.CPU, Pin: fo.Pin,
		Shards: fo.Shards, Standbys: o.standbys, Filter: o.pipes.Filter, Environ: os.Environ()}.Command
	return fo, err
}
