package report

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Figure size.
const (
	figWidth  = 8 * vg.Inch
	figHeight = 4.5 * vg.Inch
)

// Histogram draws every level's cluster-size histogram in one figure: a group of
// bars per size bin, one bar per threshold, the count of clusters on a log(1+y)
// axis so that a few large clusters show beside a great many singletons.
func (r *Report) Histogram() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Cluster sizes by threshold (%s, %d documents)", r.Algorithm, r.Documents)
	p.X.Label.Text = "cluster size (documents)"
	p.Y.Label.Text = "clusters"
	p.Y.Scale = log1pScale{}
	p.Y.Tick.Marker = log1pTicks{}
	p.Legend.Top = true
	if len(r.Levels) == 0 {
		return p, nil
	}
	var names []string
	for _, b := range r.Levels[0].Histogram {
		names = append(names, binName(b))
	}
	width := vg.Points(min(18, 360/float64(len(names)*len(r.Levels))))
	most := 1.0
	for i, l := range r.Levels {
		vals := make(plotter.Values, len(l.Histogram))
		for k, b := range l.Histogram {
			vals[k] = float64(b.Clusters)
			most = max(most, vals[k])
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("report: histogram: %w", err)
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		bars.Offset = vg.Length(float64(i)-float64(len(r.Levels)-1)/2) * width
		p.Add(bars)
		p.Legend.Add(fmt.Sprintf("threshold %g", l.Threshold), bars)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5 // room for the outer bars of each end group
	p.Y.Min, p.Y.Max = 0, most*8                     // room for the legend above the bars
	return p, nil
}

func binName(b Bin) string {
	if b.Min == b.Max {
		return strconv.Itoa(b.Min)
	}
	return fmt.Sprintf("%d–%d", b.Min, b.Max)
}

// SVG renders the histogram as SVG.
func (r *Report) SVG() ([]byte, error) { return r.render("svg") }

// PNG renders the histogram as PNG.
func (r *Report) PNG() ([]byte, error) { return r.render("png") }

func (r *Report) render(format string) ([]byte, error) {
	p, err := r.Histogram()
	if err != nil {
		return nil, err
	}
	wt, err := p.WriterTo(figWidth, figHeight, format)
	if err != nil {
		return nil, fmt.Errorf("report: histogram %s: %w", format, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("report: histogram %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// log1pScale places y at log(1+y), which is defined at zero, where bars start.
type log1pScale struct{}

func (log1pScale) Normalize(lo, hi, y float64) float64 {
	lo, hi = math.Log1p(max(lo, 0)), math.Log1p(max(hi, 0))
	if hi == lo {
		return 0
	}
	return (math.Log1p(max(y, 0)) - lo) / (hi - lo)
}

// log1pTicks marks 0 and the powers of ten, with minor ticks at 2…9 of each decade.
type log1pTicks struct{}

func (log1pTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := []plot.Tick{{Value: 0, Label: "0"}}
	for dec := 1.0; dec <= max(hi, 1); dec *= 10 {
		ticks = append(ticks, plot.Tick{Value: dec, Label: strconv.FormatFloat(dec, 'f', -1, 64)})
		for k := 2.0; k < 10 && k*dec <= hi; k++ {
			ticks = append(ticks, plot.Tick{Value: k * dec})
		}
	}
	return ticks
}
