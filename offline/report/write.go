package report

import (
	"bufio"
	_ "embed"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// Files WriteDir writes.
const (
	FileSVG  = "histogram.svg"
	FilePNG  = "histogram.png"
	FileJSON = "clusters.json"
	FileCSV  = "clusters.csv"
	FileHTML = "report.html"
)

// WriteDir writes the five report files into dir, creating it if needed.
func (r *Report) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	svg, err := r.SVG()
	if err != nil {
		return err
	}
	png, err := r.PNG()
	if err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{FileSVG, func(w io.Writer) error { _, err := w.Write(svg); return err }},
		{FilePNG, func(w io.Writer) error { _, err := w.Write(png); return err }},
		{FileJSON, r.WriteJSON},
		{FileCSV, r.WriteCSV},
		{FileHTML, func(w io.Writer) error { return r.writeHTML(w, svg) }},
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	return nil
}

// WriteJSON writes the whole report, every cluster of every level included, as
// one JSON object of the Report type.
func (r *Report) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(r)
}

// CSVHeader is the header of clusters.csv: one row per document and threshold.
var CSVHeader = []string{"threshold", "cluster", "size", "rank", "id", "first"}

// WriteCSV writes every document's cluster at every threshold: the threshold,
// the cluster id, its size, its rank by size (1 = largest), the document id,
// and whether the document is the cluster's earliest ("1") or not ("0").
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(CSVHeader)
	for _, l := range r.Levels {
		t := strconv.FormatFloat(l.Threshold, 'f', -1, 64)
		for rank, c := range l.Clusters {
			id, size, rk := strconv.FormatUint(c.ID, 10), strconv.Itoa(c.Size), strconv.Itoa(rank+1)
			for k, m := range c.Members {
				first := "0"
				if k == 0 {
					first = "1"
				}
				cw.Write([]string{t, id, size, rk, m, first})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

//go:embed report.html.tmpl
var htmlText string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"top": func(cs []Cluster, n int) []Cluster { return cs[:min(n, len(cs))] },
	"inc": func(i int) int { return i + 1 },
	"bin": binName,
	"pct": func(a, b int) string {
		if b == 0 {
			return "–"
		}
		return strconv.FormatFloat(100*float64(a)/float64(b), 'f', 1, 64) + "%"
	},
}).Parse(htmlText))

// WriteHTML writes report.html: totals, the histogram figure embedded as a data
// URL, and the largest clusters of each level with their earliest document.
func (r *Report) WriteHTML(w io.Writer) error {
	svg, err := r.SVG()
	if err != nil {
		return err
	}
	return r.writeHTML(w, svg)
}

func (r *Report) writeHTML(w io.Writer, svg []byte) error {
	return htmlTemplate.Execute(w, struct {
		*Report
		Figure template.URL
		Files  []string
	}{r, template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg)),
		[]string{FileJSON, FileCSV, FileSVG, FilePNG}})
}
