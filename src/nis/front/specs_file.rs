//! `--specs FILE`: several sentences, one per line; blank lines and lines
//! starting with `#` are skipped. Each sentence is parsed where it stands,
//! so that an error names the file, line and column.

use super::formula::{parse_sentence_in, Sentence};
use crate::lang::{LangResult, Source};

/// The sentences of a specs file, with their text, in file order.
pub fn parse_specs(file: &Source) -> LangResult<Vec<(String, Sentence)>> {
    let mut sentences = Vec::new();
    let mut offset = 0;
    for line in file.text().split_inclusive('\n') {
        let text = line.trim();
        if !text.is_empty() && !text.starts_with('#') {
            // Every byte before the line blanked (newlines kept), so that
            // offsets, lines and columns are the file's.
            let before: String = file.text()[..offset]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' })
                .collect();
            let alone = Source::new(file.name(), format!("{before}{}", line.trim_end()));
            sentences.push((text.to_string(), parse_sentence_in(&alone)?));
        }
        offset += line.len();
    }
    Ok(sentences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_keep_their_lines_and_errors_their_place() {
        let file = Source::new(
            "q.specs",
            "# two sentences\n\nforall v1: EX^1 (alive, v1)\n  forall v1: AX^2 (alive, v1)\n",
        );
        let s = parse_specs(&file).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].0, "forall v1: AX^2 (alive, v1)");
        let bad = Source::new(
            "q.specs",
            "forall v1: EX^1 (alive, v1)\n\nforall v1: EX^1 (alive, v2)\n",
        );
        let e = parse_specs(&bad).unwrap_err();
        // Column 17: the atom `(alive, v2)` after `forall v1: EX^1 `.
        assert_eq!(e.location, "q.specs:3:17", "{e:?}");
    }
}
