//! Every expression a point needs (buffer lengths, grid, block, shared memory, loop and pass
//! counts, defines, scalar arguments, reference dims, metric formulas), evaluated and bounded at
//! one planned point before anything is allocated or launched, so `check` sees what a build or
//! `record` would. Pure: no GPU; device variables take their nominal values
//! ([`crate::metrics::DEVICE_VARS`]).

use crate::expr::{Expr, Num};
use crate::limits::{MAX_BLOCK, MAX_GRID, MAX_LAUNCHES, MAX_SHARED_BYTES, MAX_THREADS_PER_BLOCK};
use crate::spec::{ArgSpec, DefineValue, Exec, Experiment, Launch, Variant};
use crate::value::ParamValue;
use std::collections::{BTreeMap, HashMap};

/// What is wrong at a point: the spec expression concerned (its source text) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `grid`, `buffer a length`, `define TILE`, …
    pub what: String,
    /// The expression's source text as written in the spec (to find its line).
    pub expr: String,
    /// Variables of the expression (to tell whether a directive's axis caused it).
    pub vars: Vec<String>,
    pub message: String,
}

struct Checker<'a> {
    vars: HashMap<String, Num>,
    out: &'a mut Vec<Problem>,
}

impl Checker<'_> {
    fn problem(&mut self, what: &str, e: &Expr, message: String) {
        self.out.push(Problem {
            what: what.to_string(),
            expr: e.source().to_string(),
            vars: e.variables(),
            message,
        });
    }

    fn eval(&mut self, what: &str, e: &Expr) -> Option<Num> {
        match e.eval(&self.vars) {
            Ok(n) => Some(n),
            Err(err) => {
                self.problem(what, e, err.message.to_string());
                None
            }
        }
    }

    /// An integer in `lo..=hi`.
    fn int(&mut self, what: &str, e: &Expr, lo: i64, hi: i64) -> Option<i64> {
        let n = self.eval(what, e)?;
        let Some(i) = n.as_i64() else {
            self.problem(what, e, format!("{n} is not an integer"));
            return None;
        };
        if i < lo || i > hi {
            self.problem(what, e, format!("{i} is outside {lo}..={hi}"));
            return None;
        }
        Some(i)
    }
}

/// The variables of a point without a device: its parameters, `WARP` and the nominal device's.
pub(crate) fn nominal_vars(params: &BTreeMap<String, ParamValue>) -> HashMap<String, Num> {
    let mut vars = crate::spec::metrics::point_vars(params, None);
    for d in crate::metrics::DEVICE_VARS {
        vars.entry(d.name.to_string())
            .or_insert(Num::Int(d.nominal));
    }
    vars
}

/// The spec's preconditions (`[[require]]`) that `params` break: a problem each (its message
/// the spec's, or that it does not hold), and none for a point that meets them all.
pub fn check_requires(exp: &Experiment, params: &BTreeMap<String, ParamValue>) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut c = Checker {
        vars: nominal_vars(params),
        out: &mut out,
    };
    for r in &exp.requires {
        if c.eval("precondition", &r.expr).is_some_and(|n| !n.truthy()) {
            let values: Vec<String> = (r.expr.variables().iter())
                .filter_map(|v| Some(format!("{v} = {}", c.vars.get(v)?)))
                .collect();
            let why = r
                .message
                .as_deref()
                .map_or(String::new(), |m| format!(": {m}"));
            let message = format!("does not hold for {}{why}", values.join(", "));
            c.problem("precondition", &r.expr, message);
        }
    }
    out
}

/// Every problem of `variant` at `params`; buffers may take `max_buffer_bytes` in all.
pub fn check_point(
    exp: &Experiment,
    variant: &Variant,
    params: &BTreeMap<String, ParamValue>,
    max_buffer_bytes: u64,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut c = Checker {
        vars: nominal_vars(params),
        out: &mut out,
    };
    let mut total: u64 = 0;
    let mut largest: Option<(u64, &Expr)> = None;
    for b in &exp.buffers {
        let what = format!("buffer `{}` length", b.name);
        let Some(len) = c.int(&what, &b.len, 1, i64::MAX) else {
            continue;
        };
        let bytes = (len as u64).saturating_mul(b.elem.size_of() as u64);
        total = total.saturating_add(bytes);
        if largest.is_none_or(|(n, _)| bytes > n) {
            largest = Some((bytes, &b.len));
        }
    }
    if total > max_buffer_bytes
        && let Some((_, e)) = largest
    {
        c.problem(
            "buffers",
            e,
            format!(
                "the buffers take {total} bytes; the limit is {max_buffer_bytes} (`max_buffer_bytes` in book.toml)"
            ),
        );
    }
    let verify = exp.verify_for(variant);
    for (name, e) in &verify.dims {
        c.int(&format!("verify dim `{name}`"), e, 0, i64::MAX);
    }
    let mut metric_vars = c.vars.clone();
    metric_vars.insert("time_s".into(), Num::Float(1.0));
    for (name, nominal) in crate::metrics::ATTRIBUTE_VARS {
        metric_vars.insert(name.to_string(), Num::Int(*nominal));
    }
    let metric_exprs = [&exp.metrics.bytes, &exp.metrics.flops]
        .into_iter()
        .flatten()
        .map(|e| ("metric", e))
        .chain(exp.metrics.custom.iter().map(|m| ("metric", &m.expr)))
        .chain(variant.metrics.iter().map(|(_, e)| ("metric", e)));
    for (what, e) in metric_exprs {
        if let Err(err) = e.eval(&metric_vars) {
            c.problem(what, e, err.message.to_string());
        }
    }
    if matches!(variant.exec, Exec::Kernel { .. }) {
        check_kernel(&mut c, variant);
    }
    out
}

fn check_kernel(c: &mut Checker, v: &Variant) {
    for (name, value) in &v.defines {
        if let DefineValue::Expr(e) = value {
            c.eval(&format!("define `{name}`"), e);
        }
    }
    if let Some(l) = &v.loop_ {
        c.int("loop count", &l.count, 0, MAX_LAUNCHES);
        c.vars.insert(l.var.clone(), Num::Int(0));
    }
    if let Some(p) = &v.passes {
        check_passes(c, p);
    }
    for l in &v.launches {
        check_launch(c, l);
    }
}

/// One launch's grid, block, shared memory and scalar arguments, within the launch limits.
fn check_launch(c: &mut Checker, v: &Launch) {
    let mut threads: u64 = 1;
    for (i, e) in v.grid.iter().enumerate().take(3) {
        c.int("grid", e, 1, MAX_GRID[i] as i64);
    }
    for (i, e) in v.block.iter().enumerate().take(3) {
        if let Some(n) = c.int("block", e, 1, MAX_BLOCK[i] as i64) {
            threads = threads.saturating_mul(n as u64);
            if threads > MAX_THREADS_PER_BLOCK {
                c.problem(
                    "block",
                    e,
                    format!("the block has {threads} threads; at most {MAX_THREADS_PER_BLOCK}"),
                );
            }
        }
    }
    if let Some(e) = &v.shared {
        c.int("shared", e, 0, MAX_SHARED_BYTES as i64);
    }
    for a in &v.args {
        if let ArgSpec::Scalar(ty, e) = a {
            let Some((lo, hi)) = ty.int_range() else {
                if let Some(n) = c.eval("argument", e)
                    && !n.as_f64().is_finite()
                {
                    c.problem("argument", e, format!("{n} is not finite"));
                }
                continue;
            };
            // The expression language's integers are i64: clamp u64's range to it.
            let clamp = |x: i128| x.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
            let (lo, hi) = (clamp(lo), clamp(hi));
            c.int("argument", e, lo, hi);
        }
    }
}

/// The multi-pass sequence must shrink to one element within 64 passes (as the engine runs it).
fn check_passes(c: &mut Checker, p: &crate::spec::PassSpec) {
    let Some(mut count) = c.int("passes.count", &p.count, 1, i64::MAX) else {
        return;
    };
    for _ in 0..64 {
        c.vars.insert("count".into(), Num::Int(count));
        let Some(next) = c.int("passes.next", &p.next, i64::MIN, i64::MAX) else {
            return;
        };
        if next <= 1 {
            return;
        }
        if next >= count {
            c.problem(
                "passes.next",
                &p.next,
                format!("passes.next({count}) = {next} does not shrink"),
            );
            return;
        }
        count = next;
    }
    c.problem(
        "passes.next",
        &p.next,
        "does not reach 1 within 64 passes".into(),
    );
}
