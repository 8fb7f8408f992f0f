//! CUDA C++ source normalised for cache keys: comments and the amount of whitespace removed,
//! everything the compiler can see kept, so that a comment edit or a re-indent never re-keys a point.
//!
//! The rule is that two sources may normalise to the same text only when the compiler treats
//! them identically (translation phases 1–3 of C++17, which NVRTC implements):
//! - a comment becomes whitespace (a block comment one space, as the standard says, even when it
//!   spans lines; a line comment ends before its newline, and a `\`-newline continues it);
//! - a run of whitespace becomes one space, or one newline where the newline ends or begins a
//!   preprocessor directive (a directive ends at its line's end); leading and trailing whitespace
//!   goes;
//! - whether two tokens were separated by whitespace is kept (`#define F(x)` is not
//!   `#define F (x)`, and `#x` stringises its argument's spacing), so `a+b` and `a + b` differ;
//! - string and character literals (with `u8`/`u`/`U`/`L` prefixes) and raw strings (`R"d(…)d"`)
//!   are copied verbatim: `//`, `/*` and whitespace inside them are text;
//! - a `\`-newline outside a literal is removed (phase 2 splices the lines), so `in\⏎t` is `int`;
//!   inside a literal it is kept verbatim (never merging two different texts);
//! - `'` inside a number is a digit separator (`1'000`), not a character literal.
//!
//! Where the scanner is unsure it copies text verbatim, which can only make two equivalent sources
//! key differently, never two different ones key the same.

/// The normalised text of a CUDA C++ source.
pub(crate) fn normalise(src: &str) -> String {
    Scanner::new(src).run()
}

/// `#include "name"` targets of a normalised source, in order (angle-bracket includes are the
/// toolkit's: its version is provenance, not key).
pub(crate) fn quoted_includes(normalised: &str) -> Vec<String> {
    normalised
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let rest = rest.strip_prefix('"')?;
            rest.split_once('"').map(|(name, _)| name.to_string())
        })
        .collect()
}

/// What separates the token just written from the next one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gap {
    None,
    Space,
    Newline,
}

struct Scanner {
    chars: Vec<char>,
    i: usize,
    out: String,
    gap: Gap,
    /// The current logical line is a preprocessor directive.
    in_directive: bool,
    /// Only whitespace and comments since the last newline (a `#` here starts a directive).
    at_line_start: bool,
    /// The word being written (identifier or pp-number) started with a digit.
    in_number: bool,
    /// The identifier characters just written, for literal prefixes (`u8`, `LR`, …).
    word: String,
}

impl Scanner {
    fn new(src: &str) -> Self {
        Scanner {
            chars: src.chars().collect(),
            i: 0,
            out: String::with_capacity(src.len()),
            gap: Gap::None,
            in_directive: false,
            at_line_start: true,
            in_number: false,
            word: String::new(),
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    /// Length of a `\`-newline (`\` `\n` or `\` `\r\n`) at the cursor, 0 if none.
    fn splice_len(&self) -> usize {
        if self.peek(0) != Some('\\') {
            return 0;
        }
        match (self.peek(1), self.peek(2)) {
            (Some('\n'), _) => 2,
            (Some('\r'), Some('\n')) => 3,
            _ => 0,
        }
    }

    fn run(mut self) -> String {
        while let Some(c) = self.peek(0) {
            let splice = self.splice_len();
            if splice > 0 {
                // Phase 2: the lines join; no whitespace appears.
                self.i += splice;
            } else if c == '/' && self.peek(1) == Some('/') {
                self.line_comment();
            } else if c == '/' && self.peek(1) == Some('*') {
                self.block_comment();
            } else if c == '\n' {
                self.newline();
                self.i += 1;
            } else if c.is_whitespace() {
                self.space();
                self.i += 1;
            } else if c == '"' {
                self.string_literal();
            } else if c == '\'' && !self.in_number {
                self.quoted('\'');
            } else {
                self.token_char(c);
                self.i += 1;
            }
        }
        self.out
    }

    fn space(&mut self) {
        if self.gap == Gap::None {
            self.gap = Gap::Space;
        }
        self.word.clear();
        self.in_number = false;
    }

    fn newline(&mut self) {
        if self.in_directive {
            self.gap = Gap::Newline;
        } else {
            self.space();
        }
        self.in_directive = false;
        self.at_line_start = true;
        self.word.clear();
        self.in_number = false;
    }

    /// Writes the pending gap before a token that starts with `first`.
    fn flush_gap(&mut self, first: char) {
        let starts_directive = self.at_line_start && first == '#';
        if !self.out.is_empty() {
            match self.gap {
                Gap::Newline => self.out.push('\n'),
                Gap::Space if starts_directive => self.out.push('\n'),
                Gap::Space => self.out.push(' '),
                Gap::None => {}
            }
        }
        if starts_directive {
            self.in_directive = true;
        }
        self.gap = Gap::None;
        self.at_line_start = false;
    }

    fn token_char(&mut self, c: char) {
        let word_char = c.is_alphanumeric() || c == '_';
        if self.gap != Gap::None || self.at_line_start {
            self.flush_gap(c);
            self.word.clear();
            self.in_number = false;
        }
        if word_char || (self.in_number && c == '.') {
            if self.word.is_empty() && !self.in_number {
                self.in_number = c.is_ascii_digit();
            }
            self.word.push(c);
        } else if c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit()) {
            // `.5` starts a pp-number.
            self.word.clear();
            self.in_number = true;
        } else if self.in_number
            && (c == '+' || c == '-')
            && self.word.ends_with(['e', 'E', 'p', 'P'])
        {
            // Exponent sign inside a pp-number (`1e-5`): still the number.
        } else {
            self.word.clear();
            self.in_number = false;
        }
        self.out.push(c);
    }

    fn line_comment(&mut self) {
        // Up to (not including) the newline; a `\`-newline continues the comment.
        while let Some(c) = self.peek(0) {
            let splice = self.splice_len();
            if splice > 0 {
                self.i += splice;
            } else if c == '\n' {
                break;
            } else {
                self.i += 1;
            }
        }
        self.space();
    }

    fn block_comment(&mut self) {
        self.i += 2;
        while self.i < self.chars.len() {
            if self.peek(0) == Some('*') && self.peek(1) == Some('/') {
                self.i += 2;
                break;
            }
            self.i += 1;
        }
        // One space, even across lines: a directive continues past it.
        self.space();
    }

    fn string_literal(&mut self) {
        let raw = matches!(self.word.as_str(), "R" | "u8R" | "uR" | "UR" | "LR");
        if raw {
            self.raw_string();
        } else {
            self.quoted('"');
        }
    }

    /// A `"…"` or `'…'` literal, verbatim, with `\` escapes; ends at the closing quote or the end
    /// of the line (an unterminated literal is the compiler's error to report).
    fn quoted(&mut self, quote: char) {
        self.flush_or_join(quote);
        self.out.push(quote);
        self.i += 1;
        while let Some(c) = self.peek(0) {
            if c == '\\' {
                self.out.push(c);
                if let Some(next) = self.peek(1) {
                    self.out.push(next);
                }
                self.i += 2;
                continue;
            }
            if c == '\n' {
                break;
            }
            self.out.push(c);
            self.i += 1;
            if c == quote {
                break;
            }
        }
        self.word.clear();
        self.in_number = false;
    }

    /// `R"delim( … )delim"`, verbatim (no splices, no escapes).
    fn raw_string(&mut self) {
        self.flush_or_join('"');
        let start = self.i;
        let mut delim = String::new();
        let mut j = self.i + 1;
        while let Some(&c) = self.chars.get(j) {
            if c == '(' {
                break;
            }
            delim.push(c);
            j += 1;
        }
        let close: Vec<char> = format!("){delim}\"").chars().collect();
        let mut end = self.chars.len();
        let mut k = j;
        while k + close.len() <= self.chars.len() {
            if self.chars[k..k + close.len()] == close[..] {
                end = k + close.len();
                break;
            }
            k += 1;
        }
        self.out.extend(&self.chars[start..end]);
        self.i = end;
        self.word.clear();
        self.in_number = false;
    }

    /// Before a literal: the pending gap, unless the literal continues a prefix just written.
    fn flush_or_join(&mut self, quote: char) {
        if self.gap != Gap::None || self.at_line_start {
            self.flush_gap(quote);
            self.word.clear();
        }
    }
}

#[cfg(test)]
#[path = "normalise_tests.rs"]
mod tests;
