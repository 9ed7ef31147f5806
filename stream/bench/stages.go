package bench

import (
	"fmt"
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
