//! The spec's meaning, written canonically for keys: what a point's run depends on, never how the
//! TOML was laid out (key order, quoting, inline vs sub-tables, blank lines, comments) nor
//! presentation (labels, titles, notes, metric formulas, which are applied when the book renders).
//!
//! Each struct is destructured without `..`, so a field added to the spec model does not compile
//! until someone decides here whether it belongs in the key.

use crate::expr::Expr;
use crate::spec::{
    ArgSpec, BufferSpec, DefineValue, Exec, Experiment, Launch, LoopSpec, PassSpec, Reference,
    Variant, VerifySpec,
};
use crate::value::ParamValue;
use std::fmt::Write;

/// An expression as written, whitespace removed (insignificant in the expression language:
/// no two valid expressions differ only in whitespace).
fn expr(e: &Expr) -> String {
    e.source().chars().filter(|c| !c.is_whitespace()).collect()
}

/// A parameter value, tagged with its type (`4` and `4.0` are different inputs).
pub(super) fn param(v: &ParamValue) -> String {
    v.typed_text()
}

/// What every point of the experiment depends on: its name and every buffer (each is allocated
/// and initialised for every variant). Parameters enter through each point's values (defaults
/// filled in), includes by digest, the verification per variant ([`verify`]).
pub(super) fn experiment(exp: &Experiment) -> String {
    let Experiment {
        name,
        dir: _,
        title: _,
        notes: _,
        includes: _,
        params: _,
        buffers,
        verify: _,
        metrics: _,
        variants: _,
        requires: _, // refuses points before they run; changes nothing a run does
    } = exp;
    let mut out = format!("experiment {name}\n");
    for b in buffers {
        let BufferSpec {
            name,
            elem,
            len,
            init,
            output,
            constant,
            reset,
        } = b;
        let _ = write!(
            out,
            "buffer {name} {elem:?} len={} init={init:?} output={output} constant={constant}",
            expr(len)
        );
        // Written only when set, so a buffer without `reset` keeps the key it had before `reset`
        // existed (see pinned_tests).
        if *reset != crate::spec::Reset::None {
            let _ = write!(out, " reset={reset:?}");
        }
        out.push('\n');
    }
    out
}

/// A point's effective verification.
pub(super) fn verify(v: &VerifySpec) -> String {
    let VerifySpec {
        reference,
        inputs,
        output,
        dims,
        tolerance,
        formula,
    } = v;
    let reference = match reference {
        Reference::Builtin(name) => format!("builtin:{name}"),
        Reference::Variant(name) => format!("variant:{name}"),
    };
    let dims: Vec<String> = dims
        .iter()
        .map(|(n, e)| format!("{n}={}", expr(e)))
        .collect();
    format!(
        "verify {reference} inputs={inputs:?} output={output} dims={dims:?} tolerance={tolerance:?} formula={:?}",
        formula.as_ref().map(expr)
    )
}

/// What a variant runs and how it is launched; not its label, its metric formulas nor its
/// verification (see [`verify`], which keys the effective one).
pub(super) fn variant(v: &Variant) -> String {
    let Variant {
        name,
        label: _,
        exec,
        defines,
        launches,
        loop_,
        passes,
        options,
        metrics: _,
        verify: _,
        // Which GPUs can run it, not what runs: a GPU that can runs the same code.
        min_arch: _,
    } = v;
    let mut out = format!("variant {name}\n");
    // One launch is written as before sequences existed, so its variant keeps its key; a
    // sequence names each launch's kernel before its geometry.
    let sequence = launches.len() > 1;
    match exec {
        // The source's content is keyed by digest (`SourceCache::digest`), not by its path.
        Exec::Kernel { source: _ } if !sequence => {
            let kernel = launches.first().map_or("", |l| l.kernel.as_str());
            let _ = writeln!(out, "kernel {kernel}");
        }
        Exec::Kernel { source: _ } => {}
        Exec::Cpu(name) => {
            let _ = writeln!(out, "cpu {name}");
        }
        Exec::Library(name) => {
            let _ = writeln!(out, "library {name}");
        }
    }
    for (n, d) in defines {
        let value = match d {
            DefineValue::Expr(e) => format!("expr:{}", expr(e)),
            DefineValue::Literal(s) => format!("literal:{s}"),
        };
        let _ = writeln!(out, "define {n}={value}");
    }
    for l in launches {
        if sequence {
            let _ = writeln!(out, "launch {}", l.kernel);
        }
        launch(&mut out, l);
    }
    if let Some(LoopSpec { var, count }) = loop_ {
        let _ = writeln!(out, "loop {var} {}", expr(count));
    }
    if let Some(PassSpec {
        count,
        next,
        input,
        scratch,
        result,
    }) = passes
    {
        let _ = writeln!(
            out,
            "passes count={} next={} input={input} scratch={scratch:?} result={result}",
            expr(count),
            expr(next)
        );
    }
    for o in options {
        let _ = writeln!(out, "option {o}");
    }
    out
}

/// A launch's geometry and arguments (its kernel is written by the caller).
fn launch(out: &mut String, l: &Launch) {
    let Launch {
        kernel: _,
        grid,
        block,
        shared,
        args,
    } = l;
    let list = |es: &[Expr]| es.iter().map(expr).collect::<Vec<_>>().join(",");
    let _ = writeln!(out, "grid {}", list(grid));
    let _ = writeln!(out, "block {}", list(block));
    let _ = writeln!(out, "shared {:?}", shared.as_ref().map(expr));
    for a in args {
        let arg = match a {
            ArgSpec::Buffer(b) => format!("buffer:{b}"),
            ArgSpec::PassIn => "@in".to_string(),
            ArgSpec::PassOut => "@out".to_string(),
            ArgSpec::Scalar(ty, e) => format!("{ty:?}:{}", expr(e)),
        };
        let _ = writeln!(out, "arg {arg}");
    }
}

#[cfg(test)]
#[path = "spec_repr_tests.rs"]
mod tests;
