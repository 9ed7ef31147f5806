package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// StageSeconds sums the pipeline's dedupstream_stage_duration_seconds by
// stage, as "stage seconds" pairs joined by ", "; "" when g cannot be read.
func StageSeconds(g prometheus.Gatherer) string {
	mfs, err := g.Gather()
	if err != nil {
		return ""
	}
	var parts []string
	for _, mf := range mfs {
		if mf.GetName() != "dedupstream_stage_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				parts = append(parts, fmt.Sprintf("%s %.2f", l.GetValue(), m.GetHistogram().GetSampleSum()))
			}
		}
	}
	return strings.Join(parts, ", ")
}

// StageTail reports, per pipeline stage, how many batches took longer than
// 16, 32 and 64 ms (bounds of the stage histogram's buckets), from the
// metrics g gathers: where a latency tail is spent, stage by stage.
func StageTail(g prometheus.Gatherer) string {
	mfs, err := g.Gather()
	if err != nil {
		return ""
	}
	var parts []string
	for _, mf := range mfs {
		if mf.GetName() != "dedupstream_stage_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			h := m.GetHistogram()
			over := func(bound float64) uint64 {
				for _, b := range h.GetBucket() {
					if math.Abs(b.GetUpperBound()-bound) < 1e-9 {
						return h.GetSampleCount() - b.GetCumulativeCount()
					}
				}
				return 0
			}
			for _, l := range m.GetLabel() {
				parts = append(parts, fmt.Sprintf("%s %d/%d/%d", l.GetValue(), over(0.016), over(0.032), over(0.064)))
			}
		}
	}
	return strings.Join(parts, ", ")
}
