package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// StageSeconds sums the pipeline's dedupstream_stage_duration_seconds by
// stage, as "stage seconds" pairs joined by ", "; "" when g cannot be read.
func StageSeconds(g prometheus.Gatherer) string {
	return eachStage(g, func(h *dto.Histogram) string { return fmt.Sprintf("%.2f", h.GetSampleSum()) })
}

// StageTailBounds are the durations StageTail counts batches over, in
// seconds: bounds of the stage histogram's buckets (stream's metrics).
var StageTailBounds = []float64{0.016, 0.032, 0.064}

// StageTail reports, per pipeline stage, how many batches took longer than
// each of StageTailBounds ("n/n/n"; "?" for a bound that is not one of the
// histogram's), from the metrics g gathers: where a latency tail is spent,
// stage by stage.
func StageTail(g prometheus.Gatherer) string {
	return eachStage(g, func(h *dto.Histogram) string {
		over := func(bound float64) string {
			for _, b := range h.GetBucket() {
				if math.Abs(b.GetUpperBound()-bound) < 1e-9 {
					return strconv.FormatUint(h.GetSampleCount()-b.GetCumulativeCount(), 10)
				}
			}
			return "?"
		}
		counts := make([]string, len(StageTailBounds))
		for i, b := range StageTailBounds {
			counts[i] = over(b)
		}
		return strings.Join(counts, "/")
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

// HistogramQuantiles estimates the qs-quantiles (0 < q ≤ 1) of the
// histogram named name (one without labels) that g gathers, as Prometheus'
// histogram_quantile does: by linear interpolation within the bucket that
// holds each (the first bucket's lower bound is 0; a quantile past the last
// finite bound is that bound). ok is false when g has no such histogram or
// it is empty.
func HistogramQuantiles(g prometheus.Gatherer, name string, qs ...float64) (vs []float64, ok bool) {
	mfs, err := g.Gather()
	if err != nil {
		return nil, false
	}
	for _, mf := range mfs {
		if mf.GetName() != name || len(mf.GetMetric()) != 1 {
			continue
		}
		h := mf.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() == 0 {
			return nil, false
		}
		vs = make([]float64, len(qs))
		for i, q := range qs {
			vs[i] = quantile(h, q)
		}
		return vs, true
	}
	return nil, false
}

// quantile is HistogramQuantiles' estimate of one quantile of h.
func quantile(h *dto.Histogram, q float64) float64 {
	rank := q * float64(h.GetSampleCount())
	lower, below := 0.0, 0.0
	for _, b := range h.GetBucket() {
		upper, cum := b.GetUpperBound(), float64(b.GetCumulativeCount())
		if cum >= rank {
			if cum == below {
				return upper
			}
			return lower + (upper-lower)*(rank-below)/(cum-below)
		}
		lower, below = upper, cum
	}
	return lower
}
