// Package report describes a re-clustering of the stored documents at several
// similarity thresholds — totals, cluster-size histograms in one figure, the
// largest clusters with their earliest document, every cluster's members — and
// writes it as SVG, PNG, JSON, CSV and one self-contained report.html. A Report
// is not modified by its writers, which may run concurrently.
package report
