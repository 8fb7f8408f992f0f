//! `# mirror:` rows of a paper table: a variant read from the paper's cells with two axes swapped.
//!
//! `# mirror: naive_mirror = naive with BX, BY swapped` adds, for every `naive` row at (BX = a,
//! BY = b), a `naive_mirror` row at (BX = b, BY = a) with the same numbers: the paper's time of the
//! block turned on its side, so a claim such as `naive.time_ms < naive_mirror.time_ms` can be
//! evaluated on the paper's own table. No number is added: each derived row is a printed cell.

use super::PaperRow;

/// A parsed `# mirror:` line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mirror {
    /// The variant the derived rows get (`naive_mirror`).
    pub variant: String,
    /// The variant whose rows are mirrored (`naive`).
    pub of: String,
    /// The two axes swapped (`BX`, `BY`).
    pub axes: (String, String),
}

impl Mirror {
    /// Parses `<new> = <variant> with <axis>, <axis> swapped`.
    pub(crate) fn parse(text: &str) -> Result<Mirror, String> {
        let usage = || {
            format!(
                "`# mirror: {text}`: expected `<new variant> = <variant> with <axis>, <axis> swapped`"
            )
        };
        let (variant, rest) = text.split_once('=').ok_or_else(usage)?;
        let (of, rest) = rest.trim().split_once(" with ").ok_or_else(usage)?;
        let axes = rest.trim().strip_suffix("swapped").ok_or_else(usage)?;
        let (a, b) = axes.split_once(',').ok_or_else(usage)?;
        let word = |s: &str| {
            let s = s.trim();
            (!s.is_empty() && !s.contains(char::is_whitespace)).then(|| s.to_string())
        };
        let mirror = Mirror {
            variant: word(variant).ok_or_else(usage)?,
            of: word(of).ok_or_else(usage)?,
            axes: (word(a).ok_or_else(usage)?, word(b).ok_or_else(usage)?),
        };
        if mirror.axes.0 == mirror.axes.1 || mirror.variant == mirror.of {
            return Err(usage());
        }
        Ok(mirror)
    }

    /// The derived rows: each row of `of` that has both axes, with the axes' values swapped.
    pub(crate) fn rows(&self, rows: &[PaperRow]) -> Vec<PaperRow> {
        let (a, b) = &self.axes;
        rows.iter()
            .filter(|row| row.variant == self.of)
            .filter_map(|row| {
                let (va, vb) = (row.axes.get(a)?, row.axes.get(b)?);
                let mut axes = row.axes.clone();
                axes.insert(a.clone(), vb.clone());
                axes.insert(b.clone(), va.clone());
                Some(PaperRow {
                    line: row.line,
                    variant: self.variant.clone(),
                    axes,
                    metrics: row.metrics.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "mirror_tests.rs"]
mod tests;
