package eval

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette gives each mode a distinct, colour-blind-safe colour (Okabe-Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},
	color.RGBA{230, 159, 0, 255},
	color.RGBA{0, 158, 115, 255},
	color.RGBA{213, 94, 0, 255},
	color.RGBA{204, 121, 167, 255},
	color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255},
}

// WritePlot draws recall@k over categories 1-4 against k for every mode
// and saves it as a PNG.
func (r *Results) WritePlot(path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("LoCoMo recall@k, categories 1-4 (%s, %s curator)", r.Config.Embedder, r.Config.Curator)
	p.X.Label.Text = "k (context items)"
	p.Y.Label.Text = "recall of evidence turns"
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, k := range RecallKs {
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: fmt.Sprint(k)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Top = true
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	for i, mode := range r.Config.Modes {
		pts := make(plotter.XYs, 0, len(RecallKs))
		for _, k := range RecallKs {
			pts = append(pts, plotter.XY{X: float64(k), Y: r.Summary[mode]["1-4"][fmt.Sprintf("recall@%d", k)]})
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", mode, err)
		}
		c := palette[i%len(palette)]
		line.Color = c
		line.Width = vg.Points(1.5)
		points.Color = c
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(string(mode), line, points)
	}
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("save plot: %w", err)
	}
	return nil
}
