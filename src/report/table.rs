//! Aligned tables for text output, also as Markdown and CSV.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    Text,
    Markdown,
    Csv,
}

/// A table of strings with a header row.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Self {
        Table {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The rows, for a caller that redraws the table with more of them.
    pub fn into_rows(self) -> Vec<Vec<String>> {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn render(&self, format: TableFormat) -> String {
        match format {
            TableFormat::Text => self.text(),
            TableFormat::Markdown => self.markdown(),
            TableFormat::Csv => self.csv(),
        }
    }

    fn widths(&self) -> Vec<usize> {
        let cols = self
            .rows
            .iter()
            .map(Vec::len)
            .chain([self.header.len()])
            .max()
            .unwrap_or(0);
        (0..cols)
            .map(|c| {
                std::iter::once(&self.header)
                    .chain(&self.rows)
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    fn text(&self) -> String {
        let w = self.widths();
        let line = |cells: &[String]| {
            let parts: Vec<String> = w
                .iter()
                .enumerate()
                .map(|(i, &width)| pad(cells.get(i).map_or("", String::as_str), width))
                .collect();
            parts.join("  ").trim_end().to_string() + "\n"
        };
        let mut out = line(&self.header);
        out.push_str(
            &(w.iter()
                .map(|&n| "-".repeat(n))
                .collect::<Vec<_>>()
                .join("  ")
                + "\n"),
        );
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }

    fn markdown(&self) -> String {
        let esc = |s: &String| s.replace('|', "\\|");
        let mut out = format!(
            "| {} |\n",
            self.header.iter().map(esc).collect::<Vec<_>>().join(" | ")
        );
        out.push_str(&format!("|{}\n", "---|".repeat(self.header.len())));
        for r in &self.rows {
            out.push_str(&format!(
                "| {} |\n",
                r.iter().map(esc).collect::<Vec<_>>().join(" | ")
            ));
        }
        out
    }

    fn csv(&self) -> String {
        let cell = |s: &String| {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.clone()
            }
        };
        std::iter::once(&self.header)
            .chain(&self.rows)
            .map(|r| r.iter().map(cell).collect::<Vec<_>>().join(",") + "\n")
            .collect()
    }
}

/// `text` followed by spaces up to `width` characters. Written out because
/// `format!("{:<width$}")` panics for widths above 65,535, and a cell may
/// hold a whole generated expression.
fn pad(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + width);
    out.push_str(text);
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(text.chars().count()),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_three_ways() {
        let mut t = Table::new(["k", "verdict"]);
        t.row(["1", "holds"]);
        t.row(["10", "a, \"b\""]);
        assert_eq!(
            t.render(TableFormat::Text),
            "k   verdict\n--  -------\n1   holds\n10  a, \"b\"\n"
        );
        assert_eq!(
            t.render(TableFormat::Csv),
            "k,verdict\n1,holds\n10,\"a, \"\"b\"\"\"\n"
        );
        assert_eq!(
            t.render(TableFormat::Markdown),
            "| k | verdict |\n|---|---|\n| 1 | holds |\n| 10 | a, \"b\" |\n"
        );
    }

    #[test]
    fn cells_wider_than_a_format_width_are_padded() {
        // 70,000 characters: above the 65,535 that `format!` width allows.
        let wide = "x".repeat(70_000);
        let mut t = Table::new(["a", "b"]);
        t.row([wide.as_str(), "1"]);
        t.row(["y", "2"]);
        let text = t.render(TableFormat::Text);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], format!("{wide}  1"));
        assert_eq!(lines[3], format!("y{}  2", " ".repeat(69_999)));
    }
}
