//! The sweep's figure (the seed's Figure 2): one line per value of the swept
//! constant, p against k, as SVG or as PNG with the bundled font. Over all n
//! a line is the exact optimum over n (by the cutoff) where it exists and the
//! abstraction's bound otherwise; the legend and the y axis say which.

use crate::lang::{num, Rat};
use crate::swarm::decide::sweep::{Row, RowKind};
use plotters::prelude::*;

/// Twelve colours told apart easily (Tableau 10 and two more), cycled.
const COLOURS: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 128),
];

/// The figure: one line per swept value, p against k.
pub struct Figure<'a> {
    pub rows: &'a [Row],
    /// The swept constant.
    pub name: &'a str,
    /// Model, property and n (or "all n").
    pub title: String,
    /// What the y axis shows (a value, or a bound on it).
    pub measure: &'a str,
}

impl Figure<'_> {
    /// SVG, or PNG with the bundled font.
    pub fn plot(
        &self,
        path: &std::path::Path,
        svg: bool,
    ) -> Result<(), Box<dyn std::error::Error>> {
        // Both backends measure text with the font (the PNG also draws it).
        crate::report::register_plot_font()?;
        if svg {
            self.draw(SVGBackend::new(path, (900, 500)).into_drawing_area())
        } else {
            self.draw(BitMapBackend::new(path, (900, 500)).into_drawing_area())
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error>>
    where
        DB::ErrorType: 'static,
    {
        let rows = self.rows;
        let kmin = rows.iter().map(|r| r.k).min().unwrap_or(0) as i64;
        let kmax = rows.iter().map(|r| r.k).max().unwrap_or(1) as i64;
        let top = rows.iter().map(|r| r.p).fold(0.0f64, f64::max);
        // The y axis fits the data (with a little room), within [0, 1].
        let ymax = (top * 1.08).clamp(0.01, 1.0);
        let mut values: Vec<Rat> = rows.iter().map(|r| r.value.clone()).collect();
        values.dedup();
        root.fill(&WHITE)?;
        // The legend gets its own panel right of the plot, never over a curve.
        let (plot_area, legend_area) = root.split_horizontally(740);
        let mut b = ChartBuilder::on(&plot_area);
        b.margin(15);
        b.caption(&self.title, ("sans-serif", 15))
            .x_label_area_size(40)
            .y_label_area_size(60);
        let mut chart = b.build_cartesian_2d(kmin..kmax.max(kmin + 1), 0f64..ymax)?;
        let ticks = ((kmax - kmin) as usize + 1).min(21);
        chart
            .configure_mesh()
            .x_desc("k")
            .y_desc(self.measure)
            .x_labels(ticks)
            .x_label_formatter(&|k| k.to_string())
            .draw()?;
        for (i, v) in values.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let line: Vec<&Row> = rows.iter().filter(|r| &r.value == v).collect();
            let pts: Vec<(i64, f64)> = line.iter().map(|r| (r.k as i64, r.p)).collect();
            chart.draw_series(LineSeries::new(pts, colour.stroke_width(2)))?;
            let y = 40 + 18 * i as i32;
            legend_area.draw(&PathElement::new(
                vec![(10, y), (40, y)],
                colour.stroke_width(2),
            ))?;
            legend_area.draw(&Text::new(
                format!("{}={}{}", self.name, num::to_f64(v), series_note(&line)),
                (46, y - 7),
                ("sans-serif", 13),
            ))?;
        }
        root.present()?;
        Ok(())
    }
}

/// What a line over all n is, for its legend entry: " (exact)" when every
/// point is the cutoff's exact optimum over n, " (bound)" when a point is
/// the abstraction's bound (nothing for a concrete size).
fn series_note(line: &[&Row]) -> &'static str {
    if line.iter().any(|r| r.kind == RowKind::Bound) {
        " (bound)"
    } else if line.iter().any(|r| r.kind == RowKind::ExactOverN) {
        " (exact)"
    } else {
        ""
    }
}
