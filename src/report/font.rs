//! The font of the PNG plots: plotters' bitmap backend draws text only with a
//! registered font, so a subset of DejaVu Sans (printable ASCII, 26 KB; its
//! licence is in `assets/fonts/LICENSE-DejaVu.txt`) is compiled in.

use std::sync::OnceLock;

/// DejaVu Sans, cut down to printable ASCII and a few symbols with fonttools'
/// `pyftsubset` (the glyphs are unchanged).
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf");

/// Makes the bundled font plotters' "sans-serif" (once per process); after
/// this a PNG draws its title, axes, ticks and legend.
pub fn register_plot_font() -> Result<(), String> {
    static RESULT: OnceLock<Result<(), String>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            plotters::style::register_font(
                "sans-serif",
                plotters::style::FontStyle::Normal,
                DEJAVU_SANS,
            )
            .map_err(|_| "the bundled plot font does not load".to_string())
        })
        .clone()
}
