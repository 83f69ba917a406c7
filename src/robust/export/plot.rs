//! The time-space trade-off plot (bound against fault period) as SVG.

use crate::robust::synth::faults::FaultRow;
use plotters::prelude::*;

/// Renders the bound against T; unachievable periods are left out.
pub fn tradeoff_svg(rows: &[FaultRow], title: &str) -> Result<String, String> {
    // plotters measures text with a registered font (the bundled one).
    crate::report::register_plot_font()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 400)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let points: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| r.bound.map(|b| (r.period as f64, b)))
            .collect();
        let xmax = rows.iter().map(|r| r.period).max().unwrap_or(1) as f64 + 0.5;
        let ymax = points.iter().map(|p| p.1).fold(0.0, f64::max) * 1.1 + 1e-9;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.5..xmax, 0.0..ymax.max(1.0))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("fault period T (steps between faults)")
            .y_desc("guaranteed distance to target")
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(points.clone(), &BLUE))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, BLUE.filled())))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
