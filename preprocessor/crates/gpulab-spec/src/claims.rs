//! `expect` claims (DESIGN.md, "Claims"): parse `[ours:] [some:] <lhs> <op> <rhs> [within P%] [where <cond>]`
//! and evaluate it at every combination of axis values (with `some:`, at least one must satisfy it;
//! `ours:` marks the handbook's own expectation in a directive that reproduces a paper's item).
//!
//! Operands and the condition are [`Expr`]s. A dotted name `variant.metric` (or `variant.metric.stat`,
//! e.g. `shared_2d.time_ms.min`) refers to a result; a plain name (`N`) to an axis value.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;

use crate::expr::{Env, Expr, ExprError, Num};

/// Tolerance of `~=` without `within`: 10 %.
pub(crate) const DEFAULT_TOLERANCE: f64 = 0.10;

/// The comparison of a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    /// `~=`: |l − r| ≤ tolerance · max(|l|, |r|).
    Approx,
}

impl CmpOp {
    const ALL: [(&'static str, CmpOp); 6] = [
        ("<=", CmpOp::Le),
        (">=", CmpOp::Ge),
        ("==", CmpOp::Eq),
        ("~=", CmpOp::Approx),
        ("<", CmpOp::Lt),
        (">", CmpOp::Gt),
    ];

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        CmpOp::ALL
            .iter()
            .find(|(_, op)| *op == self)
            .map_or("?", |(s, _)| s)
    }
}

/// Whether a claim must hold at every point or at one at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quantifier {
    /// The default: true at every point checked.
    Every,
    /// `some:` — true at one point at least: "up to 10×" is a statement about the maximum.
    Some,
}

/// The prefix of a claim that needs to hold at one point only.
pub(crate) const SOME: &str = "some:";

/// The prefix of a claim that is the handbook's own expectation, not a statement of the paper whose
/// item the directive reproduces: it is not checked on the paper's numbers nor counted as the
/// paper's in the status table.
pub(crate) const OURS: &str = "ours:";

/// A parsed claim.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    text: String,
    /// `ours:`: the handbook's expectation, not the paper's.
    ours: bool,
    quantifier: Quantifier,
    lhs: Part,
    op: CmpOp,
    rhs: Part,
    tolerance: f64,
    cond: Option<Part>,
}

/// An expression and the byte offset of its source in the claim text.
#[derive(Clone, Debug, PartialEq)]
struct Part {
    expr: Expr,
    at: usize,
}

impl Part {
    fn eval(&self, env: &dyn Env) -> Result<Num, ExprError> {
        self.expr.eval(env).map_err(|e| e.shifted(self.at))
    }
}

fn skip_ws(text: &str, pos: usize) -> usize {
    pos + (text[pos..].len() - text[pos..].trim_start().len())
}

/// Whether `text[pos..]` starts with the word `kw` (not followed by a name character).
fn at_word(text: &str, pos: usize, kw: &str) -> bool {
    text[pos..].starts_with(kw)
        && !text[pos + kw.len()..]
            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// An error on the character at `pos` (or an empty span at the end).
fn error_at(text: &str, pos: usize, message: String) -> ExprError {
    let len = text[pos..].chars().next().map_or(0, char::len_utf8);
    ExprError::new(message, pos, len)
}

impl Claim {
    /// Parses a claim; error offsets are byte offsets into `text`.
    pub fn parse(text: &str) -> Result<Claim, ExprError> {
        let start = skip_ws(text, 0);
        let (ours, start) = match text[start..].strip_prefix(OURS) {
            Some(_) => (true, skip_ws(text, start + OURS.len())),
            None => (false, start),
        };
        let (quantifier, start) = match text[start..].strip_prefix(SOME) {
            Some(_) => (Quantifier::Some, skip_ws(text, start + SOME.len())),
            None => (Quantifier::Every, start),
        };
        let (lhs, n) = Expr::parse_operand(&text[start..]).map_err(|e| e.shifted(start))?;
        let lhs = Part {
            expr: lhs,
            at: start,
        };
        let mut pos = skip_ws(text, start + n);
        let Some(&(sym, op)) = CmpOp::ALL.iter().find(|(s, _)| text[pos..].starts_with(s)) else {
            let msg = if text[pos..].starts_with("!=") {
                "`!=` cannot be claimed; use `<`, `>` or `~=`".to_string()
            } else if pos == text.len() {
                "expected a comparison after the operand: `<`, `<=`, `>`, `>=`, `==` or `~=`"
                    .to_string()
            } else {
                "expected a comparison: `<`, `<=`, `>`, `>=`, `==` or `~=`".to_string()
            };
            return Err(error_at(text, pos, msg));
        };
        pos = skip_ws(text, pos + sym.len());
        let (rhs, n) = Expr::parse_operand(&text[pos..]).map_err(|e| e.shifted(pos))?;
        let rhs = Part { expr: rhs, at: pos };
        pos = skip_ws(text, pos + n);

        let mut tolerance = DEFAULT_TOLERANCE;
        if at_word(text, pos, "within") {
            if op != CmpOp::Approx {
                return Err(ExprError::new(
                    "`within` applies only to `~=`",
                    pos,
                    "within".len(),
                ));
            }
            pos = skip_ws(text, pos + "within".len());
            let (tol, end) = parse_percent(text, pos)?;
            tolerance = tol;
            pos = skip_ws(text, end);
        }

        let mut cond = None;
        if at_word(text, pos, "where") {
            let at = skip_ws(text, pos + "where".len());
            let expr = Expr::parse_real(&text[at..]).map_err(|e| e.shifted(at))?;
            cond = Some(Part { expr, at });
        } else if pos < text.len() {
            let expected = if op == CmpOp::Approx {
                "`within`, `where`"
            } else {
                "`where`"
            };
            let found: String = text[pos..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect();
            return Err(ExprError::new(
                format!("unexpected `{found}` after the claim; expected {expected} or the end"),
                pos,
                found.len(),
            ));
        }

        let claim = Claim {
            text: text.to_string(),
            ours,
            quantifier,
            lhs,
            op,
            rhs,
            tolerance,
            cond,
        };
        if claim.result_refs().is_empty() {
            return Err(ExprError::new(
                "the claim refers to no results; name them `variant.metric`, e.g. `shared_2d.time_ms`",
                0,
                text.len(),
            ));
        }
        Ok(claim)
    }

    /// The handbook's own expectation (`ours:`), not a statement of the paper.
    pub fn is_ours(&self) -> bool {
        self.ours
    }

    #[cfg(test)]
    /// Every point, or one at least (`some:`).
    pub(crate) fn quantifier(&self) -> Quantifier {
        self.quantifier
    }

    /// The claim as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The comparison.
    pub fn op(&self) -> CmpOp {
        self.op
    }

    /// Relative tolerance of `~=` (0.10 unless `within` says otherwise).
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    fn parts(&self) -> impl Iterator<Item = &Part> {
        [&self.lhs, &self.rhs].into_iter().chain(self.cond.as_ref())
    }

    /// Every variable of the claim (operands, then condition), distinct, in order.
    fn variables(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for v in self.parts().flat_map(|p| p.expr.variables()) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// Distinct result references (variant, metric with any statistic suffix), in order of use.
    pub fn result_refs(&self) -> Vec<(String, String)> {
        self.variables()
            .iter()
            .filter_map(|v| split_ref(v))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// Distinct axis names used (plain, undotted names), in order of use.
    pub(crate) fn axis_names(&self) -> Vec<String> {
        self.variables()
            .into_iter()
            .filter(|v| !v.contains('.'))
            .collect()
    }

    /// Byte range in [`Claim::text`] of the first use of `name` (`"N"`, `"shared_2d.time_ms"`), so callers
    /// can point at an unknown variant or axis.
    pub(crate) fn span_of(&self, name: &str) -> Option<Range<usize>> {
        self.parts().find_map(|p| {
            p.expr
                .variable_span(name)
                .map(|r| r.start + p.at..r.end + p.at)
        })
    }

    /// Evaluates the claim over every group of `data`.
    pub fn evaluate(&self, data: &dyn ClaimData) -> ClaimOutcome {
        self.evaluate_groups(&data.groups())
    }

    /// Evaluates the claim at each group (one combination of axis values other than `variant`). Groups
    /// lacking a referenced value or failing `where` are skipped; an evaluation error counts as a failure.
    pub fn evaluate_groups(&self, groups: &[ClaimGroup]) -> ClaimOutcome {
        let vars = self.variables();
        let (mut checked, mut failed, mut first, mut held) = (0, 0, None, 0);
        let mut complete = 0; // groups with every value, whether or not `where` held
        for group in groups {
            if !vars.iter().all(|v| group.has(v)) {
                continue;
            }
            complete += 1;
            let env = GroupEnv(group);
            let at = if group.label.is_empty() {
                String::new()
            } else {
                format!("at {}: ", group.label)
            };
            let verdict = match &self.cond {
                Some(c) => c.eval(&env).map(Num::truthy),
                None => Ok(true),
            }
            .and_then(|applies| {
                if applies {
                    self.check(&env).map(Some)
                } else {
                    Ok(None)
                }
            });
            let problem = match verdict {
                Ok(None) => continue,
                Ok(Some(Ok(()))) => None,
                Ok(Some(Err(why))) => Some(why),
                Err(e) => Some(format!("cannot evaluate `{}`: {e}", self.text)),
            };
            checked += 1;
            if let Some(why) = problem {
                failed += 1;
                first.get_or_insert_with(|| format!("{at}{why}"));
            } else {
                held += 1;
            }
        }
        if self.quantifier == Quantifier::Some && checked > 0 {
            // One point is enough; when none holds, every point failed.
            return match first {
                Some(first) if held == 0 => ClaimOutcome::Fails {
                    checked,
                    failed,
                    first: format!("false at every point; {first}"),
                },
                _ => ClaimOutcome::Holds { checked },
            };
        }
        match first {
            _ if checked == 0 => ClaimOutcome::NotEvaluated {
                reason: self.why_not(groups, &vars, complete),
            },
            None => ClaimOutcome::Holds { checked },
            Some(first) => ClaimOutcome::Fails {
                checked,
                failed,
                first,
            },
        }
    }

    /// Compares the operands: `Ok(Ok(()))` when true, `Ok(Err(explanation))` when false.
    fn check(&self, env: &GroupEnv) -> Result<Result<(), String>, ExprError> {
        let (l, r) = (self.lhs.eval(env)?.as_f64(), self.rhs.eval(env)?.as_f64());
        let holds = match self.op {
            CmpOp::Lt => l < r,
            CmpOp::Le => l <= r,
            CmpOp::Gt => l > r,
            CmpOp::Ge => l >= r,
            CmpOp::Eq => l == r,
            CmpOp::Approx => (l - r).abs() <= self.tolerance * l.abs().max(r.abs()),
        };
        if holds {
            return Ok(Ok(()));
        }
        let within = if self.op == CmpOp::Approx {
            format!(" (within {}%)", fmt_num(self.tolerance * 100.0))
        } else {
            String::new()
        };
        Ok(Err(format!(
            "{} {} {}{within} is false",
            fmt_num(l),
            self.op.symbol(),
            fmt_num(r)
        )))
    }

    fn why_not(&self, groups: &[ClaimGroup], vars: &[String], complete: usize) -> String {
        if groups.is_empty() {
            return "no results".to_string();
        }
        for v in vars.iter().filter(|v| !v.contains('.')) {
            if !groups.iter().any(|g| g.axes.contains_key(v.as_str())) {
                let axes: Vec<&str> = groups[0].axes.keys().map(String::as_str).collect();
                let hint = crate::diagnostic::did_you_mean(v, axes.iter().copied())
                    .map_or_else(String::new, |h| format!("; {h}"));
                let list = if axes.is_empty() {
                    "none".to_string()
                } else {
                    axes.join(", ")
                };
                return format!("`{v}` is not an axis (axes: {list}){hint}");
            }
        }
        if let Some(v) = vars
            .iter()
            .find(|v| v.contains('.') && !groups.iter().any(|g| g.has(v)))
        {
            return format!("no results for `{v}`");
        }
        if let Some(c) = &self.cond {
            // Points where `where` holds but a value is missing (skipped by a budget, failed, not
            // recorded): say which, not that no point satisfies `where`.
            let applies = |g: &ClaimGroup| c.eval(&GroupEnv(g)).is_ok_and(Num::truthy);
            let missing: Vec<String> = vars
                .iter()
                .filter(|v| v.contains('.'))
                .filter(|v| groups.iter().any(|g| !g.has(v) && applies(g)))
                .map(|v| format!("`{v}`"))
                .collect();
            if !missing.is_empty() {
                return format!(
                    "where `{}` holds, there is no result for {} (not recorded, skipped or failed)",
                    c.expr.source().trim(),
                    missing.join(", ")
                );
            }
        }
        match &self.cond {
            Some(c) if complete > 0 => {
                format!("no point satisfies `where {}`", c.expr.source().trim())
            }
            _ => {
                let refs: Vec<String> = vars
                    .iter()
                    .filter(|v| v.contains('.'))
                    .map(|v| format!("`{v}`"))
                    .collect();
                format!("no point has results for all of {}", refs.join(", "))
            }
        }
    }
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Parses `5%` / `2.5 %` at `pos`; returns (fraction, end).
fn parse_percent(text: &str, pos: usize) -> Result<(f64, usize), ExprError> {
    let rest = &text[pos..];
    let num_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let after = skip_ws(text, pos + num_len);
    let value = rest[..num_len]
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite());
    match value {
        Some(v) if text[after..].starts_with('%') => Ok((v / 100.0, after + 1)),
        _ => Err(ExprError::new(
            "expected a percentage such as `5%` after `within`",
            pos,
            num_len,
        )),
    }
}

/// Splits `variant.metric[.stat]` at the first dot; `None` for a plain (axis) name.
fn split_ref(name: &str) -> Option<(&str, &str)> {
    name.split_once('.')
}

/// Compact number for messages: integers as such, others with 4 significant digits.
fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let mag = x.abs();
    if !(1e-4..1e15).contains(&mag) {
        return format!("{x:.3e}");
    }
    let decimals = (3 - mag.log10().floor() as i32).clamp(0, 12) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The results at one combination of axis values other than `variant`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClaimGroup {
    /// Axis values (`N` → 640).
    pub axes: BTreeMap<String, Num>,
    /// Shown in messages, e.g. `N=640`; see [`ClaimGroup::label_for`].
    pub label: String,
    /// (variant, metric incl. any statistic suffix) → value; failed points are simply absent.
    pub values: HashMap<(String, String), f64>,
}

impl ClaimGroup {
    /// A group with the given axes, the standard label and no values.
    pub fn new(axes: BTreeMap<String, Num>) -> Self {
        let label = Self::label_for(&axes);
        ClaimGroup {
            axes,
            label,
            values: HashMap::new(),
        }
    }

    /// Adds a value (builder style).
    pub fn with(mut self, variant: &str, metric: &str, value: f64) -> Self {
        self.values
            .insert((variant.to_string(), metric.to_string()), value);
        self
    }

    /// `N=640, M=16` (axes in name order).
    pub(crate) fn label_for(axes: &BTreeMap<String, Num>) -> String {
        axes.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn value(&self, name: &str) -> Option<f64> {
        let (variant, metric) = split_ref(name)?;
        self.values
            .get(&(variant.to_string(), metric.to_string()))
            .copied()
    }

    fn has(&self, name: &str) -> bool {
        if name.contains('.') {
            self.value(name).is_some()
        } else {
            self.axes.contains_key(name)
        }
    }
}

/// Supplies the groups a claim is evaluated over.
pub trait ClaimData {
    fn groups(&self) -> Vec<ClaimGroup>;
}

impl<const N: usize> ClaimData for [ClaimGroup; N] {
    fn groups(&self) -> Vec<ClaimGroup> {
        self.to_vec()
    }
}

impl ClaimData for Vec<ClaimGroup> {
    fn groups(&self) -> Vec<ClaimGroup> {
        self.clone()
    }
}

struct GroupEnv<'a>(&'a ClaimGroup);

impl Env for GroupEnv<'_> {
    fn var(&self, name: &str) -> Option<Num> {
        if name.contains('.') {
            self.0.value(name).map(Num::Float)
        } else {
            self.0.axes.get(name).copied()
        }
    }
}

/// The verdict on a claim.
#[derive(Clone, Debug, PartialEq)]
pub enum ClaimOutcome {
    /// True at every one of `checked` points.
    Holds { checked: usize },
    /// False (or not computable) at `failed` of `checked` points; `first` explains the first one.
    Fails {
        checked: usize,
        failed: usize,
        first: String,
    },
    /// No point had all referenced results and satisfied `where`.
    NotEvaluated { reason: String },
}

fn points(n: usize) -> String {
    if n == 1 {
        "1 point".to_string()
    } else {
        format!("{n} points")
    }
}

/// One-line description: "holds (3 points)", "does not hold at 1 of 3 points: at N=640: …",
/// "not evaluated: no results for `a.time_ms`".
pub fn describe(outcome: &ClaimOutcome) -> String {
    match outcome {
        ClaimOutcome::Holds { checked } => format!("holds ({} checked)", points(*checked)),
        ClaimOutcome::Fails {
            checked,
            failed,
            first,
        } => {
            format!("does not hold at {failed} of {}: {first}", points(*checked))
        }
        ClaimOutcome::NotEvaluated { reason } => format!("not evaluated: {reason}"),
    }
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
