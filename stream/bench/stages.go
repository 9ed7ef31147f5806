package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// StageSeconds sums the pipeline's dedupstream_stage_duration_seconds by
// stage, as "stage seconds" pairs joined by ", "; "" when g cannot be read.
func StageSeconds(g prometheus.Gatherer) string {
	return eachStage(g, func(h *dto.Histogram) string { return fmt.Sprintf("%.2f", h.GetSampleSum()) })
}

// StageTail reports, per pipeline stage, how many batches took longer than
// 16, 32 and 64 ms (bounds of the stage histogram's buckets), from the
// metrics g gathers: where a latency tail is spent, stage by stage.
func StageTail(g prometheus.Gatherer) string {
	return eachStage(g, func(h *dto.Histogram) string {
		over := func(bound float64) uint64 {
			for _, b := range h.GetBucket() {
				if math.Abs(b.GetUpperBound()-bound) < 1e-9 {
					return h.GetSampleCount() - b.GetCumulativeCount()
				}
			}
			return 0
		}
		return fmt.Sprintf("%d/%d/%d", over(0.016), over(0.032), over(0.064))
	})
}

// eachStage formats the stage histogram of each stage with f, as "stage
// f(histogram)" pairs joined by ", "; "" when g cannot be read.
func eachStage(g prometheus.Gatherer, f func(*dto.Histogram) string) string {
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
				parts = append(parts, l.GetValue()+" "+f(m.GetHistogram()))
			}
		}
	}
	return strings.Join(parts, ", ")
}
