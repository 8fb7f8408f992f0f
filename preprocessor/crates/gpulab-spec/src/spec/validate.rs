//! Stage two of spec parsing: checks a `RawSpec` and builds the `Experiment`, collecting every
//! error as a diagnostic that points into `experiment.toml`.

use super::builtins::{ACCUMULATING, CPU_BASELINES, REFERENCES};
use super::model::*;
use super::raw::{
    ExprText, LaunchKeys, RawBuffer, RawMetrics, RawPasses, RawRequire, RawSpec, RawVariant,
    RawVerify,
};
use crate::diagnostic::{Diagnostic, did_you_mean, did_you_mean_or};
use crate::expr::{Division, Expr};
use crate::host_data::init::generate;
use crate::metrics::{ATTRIBUTE_VARS, DEVICE_VARS};
use crate::source::{SourceFile, with_help};
use crate::value::{ElemType, ParamValue, Unit};
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

#[path = "reset.rs"]
mod reset;

/// The reference evaluated from the spec's own `formula` (besides the engine's built-in ones).
pub(crate) const FORMULA: &str = "formula";

/// The name under which a `formula` reads its own earlier elements: `ref[i-1]` (a recurrence, such
/// as a prefix sum `if(i == 0, x[0], ref[i-1] + x[i])`). A formula that uses it is evaluated in order.
pub const FORMULA_SELF: &str = "ref";

/// Whether `name` is a reference a spec may name in `[verify] reference`.
fn is_reference(name: &str) -> bool {
    name == FORMULA || REFERENCES.contains(&name)
}

fn reference_names() -> impl Iterator<Item = &'static str> {
    REFERENCES.iter().copied().chain([FORMULA])
}
/// Library calls a variant may run with `library = "…"`.
pub(crate) const LIBRARIES: &[&str] = &["cublas_sgemm"];

struct Checker<'a> {
    file: &'a SourceFile,
    /// The experiment folder, and the book root that its sources must stay inside.
    dir: &'a Path,
    root: &'a Path,
    diags: Vec<Diagnostic>,
}

impl Checker<'_> {
    fn err(&mut self, span: Range<usize>, message: impl Into<String>, label: impl Into<String>) {
        let d = self.file.error(span, message, label);
        self.diags.push(d);
    }

    fn err_help(&mut self, span: Range<usize>, message: String, label: &str, help: Option<String>) {
        let d = with_help(self.file.error(span, message, label), help);
        self.diags.push(d);
    }

    /// Parses an expression written inside a TOML string at `span`, checking its variables; its
    /// integer `/` truncates (sizes, geometry, defines, arguments: [`Division::Integer`]).
    fn expr(&mut self, text: &str, span: Range<usize>, known: &BTreeSet<String>) -> Option<Expr> {
        self.expr_with(text, span, known, Division::Integer)
    }

    /// A metric formula: like [`Checker::expr`], but `/` is real division ([`Division::Real`]).
    fn metric(&mut self, text: &str, span: Range<usize>, known: &BTreeSet<String>) -> Option<Expr> {
        self.expr_with(text, span, known, Division::Real)
    }

    fn expr_with(
        &mut self,
        text: &str,
        span: Range<usize>,
        known: &BTreeSet<String>,
        division: Division,
    ) -> Option<Expr> {
        // Inside a quoted string the text starts one byte after the span.
        let inner = if span.end - span.start > text.len() {
            span.start + 1
        } else {
            span.start
        };
        match Expr::parse_with(text, division) {
            Ok(e) => {
                for var in e.variables() {
                    if !known.contains(&var) {
                        let help = did_you_mean_or(&var, known.iter().map(String::as_str), "known");
                        self.err_help(
                            span.clone(),
                            format!("unknown variable `{var}` in `{text}`"),
                            "used here",
                            help,
                        );
                        return None;
                    }
                }
                Some(e)
            }
            Err(e) => {
                let start = inner + e.offset.min(text.len());
                self.err(
                    start..start + e.len.max(1),
                    format!("invalid expression `{text}`: {}", e.message),
                    "here",
                );
                None
            }
        }
    }

    fn expr_text(&mut self, t: &Spanned<ExprText>, known: &BTreeSet<String>) -> Option<Expr> {
        self.expr(&t.get_ref().text(), t.span(), known)
    }

    /// The path of a source file the spec names, relative to its folder: an existing UTF-8 file
    /// inside the book, or inside the kernels folder (which may be a symlink to a shared one).
    fn source_file(&mut self, rel: &Spanned<String>) -> Option<PathBuf> {
        let (dir, root) = (self.dir, self.root);
        let path = dir.join(rel.get_ref());
        let kernels = dir.parent().unwrap_or(dir);
        if !path.exists() {
            self.err(
                rel.span(),
                format!("`{}` does not exist in {}", rel.get_ref(), dir.display()),
                "no such file",
            );
            return None;
        }
        if !crate::confine::is_inside(&path, &[root, kernels]) {
            self.err(
                rel.span(),
                format!("`{}` is outside the book's folder", rel.get_ref()),
                "not allowed",
            );
            return None;
        }
        if !path.is_file() {
            self.err(
                rel.span(),
                format!("`{}` is not a file", rel.get_ref()),
                "expected a .cu or header file",
            );
            return None;
        }
        if let Err(e) = std::fs::read_to_string(&path) {
            let why = if e.kind() == std::io::ErrorKind::InvalidData {
                "is not UTF-8 text".to_string()
            } else {
                format!("cannot be read: {e}")
            };
            self.err(rel.span(), format!("`{}` {why}", rel.get_ref()), "here");
            return None;
        }
        Some(path)
    }
}

/// Converts a TOML value into a parameter value (int, float or string).
pub(crate) fn param_value(v: &toml::Value) -> Option<ParamValue> {
    match v {
        toml::Value::Integer(i) => Some(ParamValue::Int(*i)),
        toml::Value::Float(f) => Some(ParamValue::Float(*f)),
        toml::Value::String(s) => Some(ParamValue::Str(s.clone())),
        _ => None,
    }
}

/// The expression variables a parameter defines: itself, and `X_X` / `X_Y` for `"AxB"` values.
pub(crate) fn param_vars(name: &str, value: &ParamValue) -> Vec<String> {
    match value.as_dim2() {
        Some(_) => vec![name.to_string(), format!("{name}_X"), format!("{name}_Y")],
        None => vec![name.to_string()],
    }
}

/// Validates a parsed spec. `dir` is the experiment folder; `root` the book root that sources
/// must stay inside.
pub fn validate(
    raw: RawSpec,
    name: &str,
    dir: &Path,
    root: &Path,
    file: &SourceFile,
) -> Result<Experiment, Vec<Diagnostic>> {
    let mut c = Checker {
        file,
        dir,
        root,
        diags: Vec::new(),
    };
    let mut known: BTreeSet<String> = DEVICE_VARS.iter().map(|d| d.name.to_string()).collect();
    let params = check_params(&mut c, &raw.params, &mut known);
    let default_source = raw.source.as_ref().and_then(|s| c.source_file(s));
    let includes = raw
        .includes
        .iter()
        .filter_map(|s| c.source_file(s))
        .collect();
    let buffers = check_buffers(&mut c, &raw.buffers, &known);
    // Every declared name, valid or not, so one bad buffer does not also make each use of it
    // an "unknown buffer".
    let buffer_names: BTreeSet<String> = raw
        .buffers
        .iter()
        .map(|b| b.get_ref().name.get_ref().clone())
        .collect();

    let verify_with = |c: &mut Checker, v: &RawVerify, span| {
        validate_verify(c, v, span, &known, &buffers, &buffer_names)
    };
    let verify = verify_with(&mut c, raw.verify.get_ref(), raw.verify.span());
    let variant_verify: Vec<Option<VerifySpec>> = raw
        .variants
        .iter()
        .map(|v| {
            let patch = v.get_ref().verify.as_ref()?;
            let merged = raw.verify.get_ref().patched(patch.get_ref());
            verify.as_ref()?;
            verify_with(&mut c, &merged, patch.span())
        })
        .collect();
    let metrics = check_metrics(&mut c, &raw.metrics, &known);
    let requires = check_requires(&mut c, &raw.requires, &known);

    let variants = check_variants(
        &mut c,
        &raw.variants,
        default_source.as_deref(),
        &known,
        &buffer_names,
    );
    check_variant_metric_names(&mut c, &raw.variants, &metrics);
    if raw.variants.is_empty() {
        c.err(
            0..0,
            "the spec declares no `[[variant]]`",
            "expected at least one",
        );
    }
    if let Some(Reference::Variant(vname)) = verify.as_ref().map(|v| &v.reference)
        && !variants.iter().any(|v| &v.name == vname)
    {
        c.err(
            raw.verify.span(),
            format!("reference variant `{vname}` is not declared"),
            "unknown variant",
        );
    }

    let verify = match verify {
        Some(v) if c.diags.is_empty() => v,
        _ => return Err(c.diags),
    };
    let variants = variants
        .into_iter()
        .zip(variant_verify)
        .map(|(mut v, vv)| {
            v.verify = vv;
            v
        })
        .collect();
    Ok(Experiment {
        name: name.to_string(),
        dir: dir.to_path_buf(),
        title: raw.title.into_inner(),
        notes: raw.notes,
        includes,
        params,
        buffers,
        verify,
        metrics,
        variants,
        requires,
    })
}

/// `[[require]]`: conditions on the parameters (and device variables), checked at every point.
fn check_requires(
    c: &mut Checker,
    raw: &[Spanned<RawRequire>],
    known: &BTreeSet<String>,
) -> Vec<Requirement> {
    raw.iter()
        .filter_map(|r| {
            let r = r.get_ref();
            Some(Requirement {
                expr: c.expr(r.expr.get_ref(), r.expr.span(), known)?,
                message: r.message.clone(),
            })
        })
        .collect()
}

/// The spec's parameters (numbers or strings), each adding the variables it defines to `known`;
/// none may be named like a side of an `"AxB"` one.
fn check_params(
    c: &mut Checker,
    raw: &indexmap::IndexMap<String, Spanned<toml::Value>>,
    known: &mut BTreeSet<String>,
) -> Vec<(String, ParamValue)> {
    let mut params = Vec::new();
    for (pname, value) in raw {
        match param_value(value.get_ref()) {
            Some(v) => {
                known.extend(param_vars(pname, &v));
                params.push((pname.clone(), v));
            }
            None => c.err(
                value.span(),
                format!("parameter `{pname}` must be a number or a string"),
                "here",
            ),
        }
    }
    // `B = "16x16"` defines `B_X` and `B_Y`: a parameter of that name would silently replace one.
    for (pname, value) in &params {
        if value.as_dim2().is_none() {
            continue;
        }
        for side in ["X", "Y"] {
            let derived = format!("{pname}_{side}");
            if let Some(other) = raw.get(&derived) {
                c.err(
                    other.span(),
                    format!(
                        "parameter `{derived}` has the name of a side of `{pname}` (its \"AxB\" value defines `{pname}_X` and `{pname}_Y`): rename one of them"
                    ),
                    format!("shadows a side of `{pname}`"),
                );
            }
        }
    }
    params
}

/// The spec's valid buffers, each declared once.
fn check_buffers(
    c: &mut Checker,
    raw: &[Spanned<RawBuffer>],
    known: &BTreeSet<String>,
) -> Vec<BufferSpec> {
    let mut buffers: Vec<BufferSpec> = Vec::new();
    for b in raw {
        let b = b.get_ref();
        if buffers.iter().any(|x| x.name == *b.name.get_ref()) {
            c.err(
                b.name.span(),
                format!("buffer `{}` is declared twice", b.name.get_ref()),
                "duplicate",
            );
        }
        buffers.extend(check_buffer(c, b, known));
    }
    buffers
}

/// One buffer: a known element type, a length expression, and an `init` and `reset` it can take.
fn check_buffer(c: &mut Checker, b: &RawBuffer, known: &BTreeSet<String>) -> Option<BufferSpec> {
    let elem = ElemType::parse(b.ty.get_ref()).ok().or_else(|| {
        let help = c_type_name(b.ty.get_ref())
            .map(|t| format!("the CUDA C type `{}` is `{t}` here", b.ty.get_ref()))
            .or_else(|| did_you_mean(b.ty.get_ref(), ElemType::names()));
        c.err_help(
            b.ty.span(),
            format!("unknown buffer type `{}`", b.ty.get_ref()),
            &format!("expected one of {}", ElemType::names().join(", ")),
            help,
        );
        None
    });
    let len = c.expr(b.len.get_ref(), b.len.span(), known);
    let init = match &b.init {
        None => Some(Init::Zero),
        Some(v) => parse_init(v.get_ref()).or_else(|| {
            c.err_help(
                v.span(),
                "invalid `init`".into(),
                "expected \"zero\", \"iota\", { constant = x } or { random = [lo, hi] }",
                init_help(v.get_ref()),
            );
            None
        }),
    };
    // An initialiser the type cannot hold (`{ constant = 300 }` for u8, 1.5 for an integer, a
    // random range beyond the type) is the spec's error, found here rather than on the GPU.
    let init = match (elem, init, &b.init) {
        (Some(elem), Some(init), Some(v)) => match generate(elem, 0, &init, 0) {
            Ok(_) => Some(init),
            Err(e) => {
                c.err(v.span(), format!("`init` does not fit {elem}: {e}"), "here");
                None
            }
        },
        (_, init, _) => init,
    };
    let reset = reset::validate(c, b, init.as_ref());
    Some(BufferSpec {
        name: b.name.get_ref().clone(),
        elem: elem?,
        len: len?,
        init: init?,
        output: b.output,
        constant: b.constant,
        reset: reset?,
    })
}

/// `[metrics]`: the `bytes` and `flops` formulas and the custom metrics, whose `/` is real
/// division and which may also read `time_s`.
fn check_metrics(c: &mut Checker, raw: &RawMetrics, known: &BTreeSet<String>) -> MetricsSpec {
    let metric_vars = metric_vars(known.clone());
    let mut formula = |e: &Option<Spanned<String>>| {
        let e = e.as_ref()?;
        c.metric(e.get_ref(), e.span(), &metric_vars)
    };
    let (bytes, flops) = (formula(&raw.bytes), formula(&raw.flops));
    let custom = raw
        .custom
        .iter()
        .filter_map(|(mname, m)| {
            let mr = m.get_ref();
            // A unit we do not know is kept as text in the label (`ps`, `way`, `GOP/s`).
            let known_unit = Unit::parse(&mr.unit);
            let mut label = mr.label.clone().unwrap_or_else(|| mname.clone());
            if known_unit.is_none() {
                label = format!("{label} ({})", mr.unit);
            }
            let expr = c.metric(mr.expr.get_ref(), mr.expr.span(), &metric_vars)?;
            Some(CustomMetric {
                name: mname.clone(),
                expr,
                unit: known_unit.unwrap_or(Unit::Count),
                label,
                better: crate::value::better_of_unit_text(&mr.unit),
            })
        })
        .collect();
    MetricsSpec {
        bytes,
        flops,
        custom,
    }
}

/// The variables a metric formula may read: `known`, `time_s` and the kernel attributes.
fn metric_vars(mut known: BTreeSet<String>) -> BTreeSet<String> {
    known.insert("time_s".into());
    known.extend(ATTRIBUTE_VARS.iter().map(|(name, _)| name.to_string()));
    known
}

/// Validates a (possibly patched) `[verify]` table.
fn validate_verify(
    c: &mut Checker,
    v: &RawVerify,
    span: Range<usize>,
    known: &BTreeSet<String>,
    buffers: &[BufferSpec],
    buffer_names: &BTreeSet<String>,
) -> Option<VerifySpec> {
    let Some(rs) = &v.reference else {
        c.err(
            span,
            "`verify` needs `reference`",
            "every point is verified",
        );
        return None;
    };
    let Some(output) = &v.output else {
        c.err(
            span,
            "`verify` needs `output` (the buffer compared with the reference)",
            "here",
        );
        return None;
    };
    let reference = check_reference(c, rs);
    let inputs = v.inputs.clone().unwrap_or_default();
    inputs
        .iter()
        .for_each(|s| check_bufname(c, s, buffer_names));
    check_bufname(c, output, buffer_names);
    let mut dims = Vec::new();
    for (dname, value) in v.dims.iter().flatten() {
        let text = match value.get_ref() {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if let Some(e) = c.expr(&text, value.span(), known) {
            dims.push((dname.clone(), e));
        }
    }
    if let Reference::Builtin(r) = &reference {
        check_builtin_dims(c, r, rs.span(), v);
    }
    let mut formula_vars = known.clone();
    formula_vars.insert("i".into());
    formula_vars.insert(FORMULA_SELF.into());
    formula_vars.extend(buffer_names.iter().cloned());
    formula_vars.extend(dims.iter().map(|(n, _)| n.clone()));
    let formula = v
        .formula
        .as_ref()
        .and_then(|f| c.expr(f.get_ref(), f.span(), &formula_vars));
    if matches!(&reference, Reference::Builtin(r) if r == "formula") && v.formula.is_none() {
        c.err(
            rs.span(),
            "reference `formula` needs a `formula = \"…\"` expression",
            "here",
        );
    }
    if let Some(t) = v.tolerance
        && !(t.is_finite() && t >= 0.0)
    {
        c.err(
            span.clone(),
            format!("`tolerance = {t}` must be a finite number >= 0"),
            "here",
        );
    }
    // A float output of an accumulating reference is verified within its derived bound alone.
    let derived = matches!(&reference, Reference::Builtin(r) if ACCUMULATING.contains(&r.as_str()));
    let default_tol = buffers
        .iter()
        .find(|b| b.name == *output.get_ref())
        .map_or(0.0, |b| {
            if b.elem.is_float() && derived {
                f64::INFINITY
            } else {
                b.elem.default_tolerance()
            }
        });
    Some(VerifySpec {
        reference,
        inputs: inputs.iter().map(|s| s.get_ref().clone()).collect(),
        output: output.get_ref().clone(),
        dims,
        tolerance: v.tolerance.unwrap_or(default_tol),
        formula,
    })
}

/// `reference = "variant:<name>"` or a built-in reference (an error when unknown).
fn check_reference(c: &mut Checker, rs: &Spanned<String>) -> Reference {
    let r = rs.get_ref();
    if let Some(var) = r.strip_prefix("variant:") {
        return Reference::Variant(var.to_string());
    }
    if !is_reference(r) {
        let help = did_you_mean_or(r, reference_names(), "built-in references");
        c.err_help(
            rs.span(),
            format!("unknown reference `{r}`"),
            "not a built-in reference",
            help,
        );
    }
    Reference::Builtin(r.clone())
}

/// The `dims` of built-in reference `r` (at `span`): each one it takes, every one it requires.
fn check_builtin_dims(c: &mut Checker, r: &str, span: Range<usize>, v: &RawVerify) {
    let Some((required, optional)) = super::builtins::dims_of(r) else {
        return;
    };
    let all = || required.iter().chain(optional).copied();
    for (dname, value) in v.dims.iter().flatten() {
        if !all().any(|d| d == dname) {
            let help = did_you_mean(dname, all()).or_else(|| {
                Some(match all().count() {
                    0 => format!("reference `{r}` takes no dims"),
                    _ => format!("dims of `{r}`: {}", all().collect::<Vec<_>>().join(", ")),
                })
            });
            c.err_help(
                value.span(),
                format!("reference `{r}` has no dim `{dname}`"),
                "unknown dim",
                help,
            );
        }
    }
    for d in required.iter() {
        if !v.dims.iter().flatten().any(|(n, _)| n == d) {
            c.err(
                span.clone(),
                format!("reference `{r}` needs `dims = {{ {d} = … }}`"),
                "missing dim",
            );
        }
    }
}

/// "did you mean `random`?" for a misspelled `init` keyword or key.
fn init_help(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => did_you_mean(s, ["zero", "iota", "random"]),
        toml::Value::Table(t) => t
            .keys()
            .find(|k| !["constant", "random"].contains(&k.as_str()))
            .and_then(|k| did_you_mean(k, ["constant", "random"])),
        _ => None,
    }
}

fn parse_init(v: &toml::Value) -> Option<Init> {
    match v {
        toml::Value::String(s) => match s.as_str() {
            "zero" => Some(Init::Zero),
            "iota" => Some(Init::Iota),
            "random" => Some(Init::Random { lo: 0.0, hi: 1.0 }),
            _ => None,
        },
        toml::Value::Table(t) if t.len() == 1 => {
            let num = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
            if let Some(c) = t.get("constant") {
                return num(c).filter(|c| c.is_finite()).map(Init::Constant);
            }
            let r = t.get("random")?.as_array()?;
            match r.as_slice() {
                [lo, hi] => {
                    let (lo, hi) = (num(lo)?, num(hi)?);
                    (lo.is_finite() && hi.is_finite() && lo <= hi)
                        .then_some(Init::Random { lo, hi })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
}

/// The spec's valid variants, each declared once.
fn check_variants(
    c: &mut Checker,
    raw: &[Spanned<RawVariant>],
    default_source: Option<&Path>,
    known: &BTreeSet<String>,
    buffers: &BTreeSet<String>,
) -> Vec<Variant> {
    let mut variants: Vec<Variant> = Vec::new();
    for v in raw {
        let Some(variant) = validate_variant(c, v, default_source, known, buffers) else {
            continue;
        };
        if variants.iter().any(|x| x.name == variant.name) {
            c.err(
                v.get_ref().name.span(),
                format!("variant `{}` is declared twice", variant.name),
                "duplicate",
            );
        }
        variants.push(variant);
    }
    variants
}

fn validate_variant(
    c: &mut Checker,
    sv: &Spanned<RawVariant>,
    default_source: Option<&Path>,
    known: &BTreeSet<String>,
    buffers: &BTreeSet<String>,
) -> Option<Variant> {
    let v = sv.get_ref();
    let name = v.name.get_ref().clone();
    if !is_ident(&name) {
        c.err(
            v.name.span(),
            format!("variant name `{name}` must be lowercase letters, digits and `_`"),
            "here",
        );
    }
    let mut known = known.clone();
    if let Some(l) = &v.loop_ {
        known.insert(l.get_ref().var.get_ref().clone());
    }
    if v.passes.is_some() {
        known.insert("count".into());
    }
    let exec = check_exec(c, v, default_source)?;
    let kernel = matches!(exec, Exec::Kernel { .. });
    let passes = v.passes.is_some();
    let launches = v
        .launches()
        .iter()
        .map(|l| {
            // A problem of the variant's own launch is shown at its name, of a table at its kernel.
            let at = match (v.launch.is_empty(), l.kernel) {
                (false, Some(k)) => k.span(),
                _ => v.name.span(),
            };
            check_launch(c, (&name, at), kernel, l, passes, buffers, &known)
        })
        .collect();
    let defines = check_defines(c, v, &known);
    let loop_ = v.loop_.as_ref().and_then(|l| {
        let l = l.get_ref();
        Some(LoopSpec {
            var: l.var.get_ref().clone(),
            count: c.expr_text(&l.count, &known)?,
        })
    });
    let passes = v
        .passes
        .as_ref()
        .and_then(|p| check_passes(c, p, buffers, &known));
    let metric_vars = metric_vars(known);
    Some(Variant {
        label: v.label.clone().unwrap_or_else(|| name.clone()),
        name,
        exec,
        defines,
        launches,
        loop_,
        passes,
        options: v.options.clone(),
        metrics: v
            .metrics
            .iter()
            .filter_map(|(name, e)| {
                Some((name.clone(), c.metric(e.get_ref(), e.span(), &metric_vars)?))
            })
            .collect(),
        verify: None,
        min_arch: v.min_arch.as_ref().map(|m| {
            let arch = *m.get_ref();
            if !(30..=999).contains(&arch) {
                let help = "write the compute capability without its dot: `90` for sm_90";
                c.err_help(
                    m.span(),
                    format!("`min_arch = {arch}` is no architecture"),
                    "here",
                    Some(help.into()),
                );
            }
            (arch / 10, arch % 10)
        }),
    })
}

/// One launch's geometry and arguments; a kernel's needs 1 to 3 `grid` and `block` expressions.
fn check_launch(
    c: &mut Checker,
    (variant, at): (&str, Range<usize>),
    kernel: bool,
    l: &LaunchKeys,
    passes: bool,
    buffers: &BTreeSet<String>,
    known: &BTreeSet<String>,
) -> Launch {
    let dims_ok = |d: &[Spanned<ExprText>]| (1..=3).contains(&d.len());
    if kernel && !(dims_ok(l.grid) && dims_ok(l.block)) {
        c.err(
            at,
            format!(
                "kernel variant `{variant}` needs `grid` and `block` with 1 to 3 expressions each"
            ),
            "here",
        );
    }
    let mut exprs = |list: &[Spanned<ExprText>]| -> Vec<Expr> {
        list.iter().filter_map(|e| c.expr_text(e, known)).collect()
    };
    let (grid, block) = (exprs(l.grid), exprs(l.block));
    let shared = l.shared.and_then(|e| c.expr_text(e, known));
    let args = l
        .args
        .iter()
        .filter_map(|a| check_arg(c, a, passes, buffers, known))
        .collect();
    Launch {
        kernel: l.kernel.map(|k| k.get_ref().clone()).unwrap_or_default(),
        grid,
        block,
        shared,
        args,
    }
}

/// What runs the variant: exactly one of a kernel (in its own or the spec's source), a launch
/// sequence of kernels, a built-in CPU baseline or a library call.
fn check_exec(c: &mut Checker, v: &RawVariant, default_source: Option<&Path>) -> Option<Exec> {
    let name = v.name.get_ref();
    if !v.launch.is_empty() {
        check_sequence_keys(c, v);
    }
    // A CPU baseline or library call: the name must be one of those built in.
    let mut builtin = |s: &Spanned<String>, list: &[&str], what: &str| {
        if !list.contains(&s.get_ref().as_str()) {
            let help = did_you_mean(s.get_ref(), list.iter().copied());
            c.err_help(
                s.span(),
                format!("unknown {what} `{}`", s.get_ref()),
                "not built in",
                help,
            );
        }
        s.get_ref().clone()
    };
    let kernel = v
        .kernel
        .as_ref()
        .or(v.launch.first().map(|l| &l.get_ref().kernel));
    Some(match (kernel, &v.cpu, &v.library) {
        (Some(k), None, None) => {
            let source = match &v.source {
                Some(s) => c.source_file(s)?,
                None => match default_source {
                    Some(p) => p.to_path_buf(),
                    None => {
                        c.err(
                            k.span(),
                            format!("variant `{name}` has no `source` and the spec sets none"),
                            "which .cu file?",
                        );
                        return None;
                    }
                },
            };
            Exec::Kernel { source }
        }
        (None, Some(cpu), None) => Exec::Cpu(builtin(cpu, CPU_BASELINES, "CPU baseline")),
        (None, None, Some(lib)) => Exec::Library(builtin(lib, LIBRARIES, "library call")),
        _ => {
            c.err(
                v.name.span(),
                format!("variant `{name}` needs exactly one of `kernel`, `cpu` or `library`"),
                "here",
            );
            return None;
        }
    })
}

/// A variant with `[[variant.launch]]` tables gives each launch's keys there, and repeats none.
fn check_sequence_keys(c: &mut Checker, v: &RawVariant) {
    let own = [
        ("kernel", v.kernel.as_ref().map(|k| k.span())),
        ("grid", v.grid.first().map(|e| e.span())),
        ("block", v.block.first().map(|e| e.span())),
        ("shared", v.shared.as_ref().map(|e| e.span())),
        ("args", v.args.first().map(|e| e.span())),
    ];
    for (key, span) in own {
        if let Some(span) = span {
            c.err(
                span,
                format!("variant `{}` has `[[variant.launch]]` tables, so `{key}` belongs in each of them", v.name.get_ref()),
                "not with `[[variant.launch]]`",
            );
        }
    }
    let repeats = [
        ("loop", v.loop_.as_ref().map(|l| l.span())),
        ("passes", v.passes.as_ref().map(|p| p.span())),
    ];
    for (key, span) in repeats {
        if let Some(span) = span {
            c.err(
                span,
                format!("`{key}` repeats a variant's one launch; variant `{}` has a sequence of `[[variant.launch]]`", v.name.get_ref()),
                "not with `[[variant.launch]]`",
            );
        }
    }
}

/// The variant's `defines`: expression strings, numbers or `{ text = "…" }`.
fn check_defines(
    c: &mut Checker,
    v: &RawVariant,
    known: &BTreeSet<String>,
) -> Vec<(String, DefineValue)> {
    let mut defines = Vec::new();
    for (dname, value) in &v.defines {
        let dv = match value.get_ref() {
            toml::Value::String(s) => c.expr(s, value.span(), known).map(DefineValue::Expr),
            toml::Value::Integer(i) => Some(DefineValue::Literal(i.to_string())),
            toml::Value::Float(f) => Some(DefineValue::Literal(f.to_string())),
            toml::Value::Table(t) => t
                .get("text")
                .and_then(|t| t.as_str())
                .map(|s| DefineValue::Literal(s.into())),
            _ => None,
        };
        match dv {
            Some(dv) => defines.push((dname.clone(), dv)),
            None => c.err(
                value.span(),
                format!("invalid define `{dname}`"),
                "expected an expression string, a number or { text = \"…\" }",
            ),
        }
    }
    defines
}

/// One kernel argument: `@in`/`@out` (with `passes`), a buffer, or a scalar expression (`i32`
/// unless written `{ <type> = "expr" }`).
fn check_arg(
    c: &mut Checker,
    a: &Spanned<toml::Value>,
    passes: bool,
    buffers: &BTreeSet<String>,
    known: &BTreeSet<String>,
) -> Option<ArgSpec> {
    match a.get_ref() {
        toml::Value::String(s) if s == "@in" || s == "@out" => {
            if !passes {
                c.err(
                    a.span(),
                    format!("`{s}` only makes sense in a variant with `passes`"),
                    "here",
                );
            }
            Some(if s == "@in" {
                ArgSpec::PassIn
            } else {
                ArgSpec::PassOut
            })
        }
        toml::Value::String(s) if buffers.contains(s) => Some(ArgSpec::Buffer(s.clone())),
        toml::Value::String(s) => c
            .expr(s, a.span(), known)
            .map(|e| ArgSpec::Scalar(ScalarType::I32, e)),
        toml::Value::Integer(i) => Expr::parse(&i.to_string())
            .ok()
            .map(|e| ArgSpec::Scalar(ScalarType::I32, e)),
        toml::Value::Table(t) if t.len() == 1 => {
            let (ty, val) = t.iter().next()?;
            let text = val
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| val.to_string());
            match ElemType::parse(ty) {
                Ok(st) => c
                    .expr(&text, a.span(), known)
                    .map(|e| ArgSpec::Scalar(st, e)),
                Err(_) => {
                    c.err_help(
                        a.span(),
                        format!("unknown scalar type `{ty}`"),
                        &format!("expected one of {}", ElemType::names().join(", ")),
                        did_you_mean(ty, ElemType::names()),
                    );
                    None
                }
            }
        }
        _ => {
            c.err(
                a.span(),
                "invalid kernel argument",
                "expected a buffer name, an expression or { f32 = \"expr\" }",
            );
            None
        }
    }
}

/// `passes`: its buffers declared, two scratch buffers, and its `count` and `next` expressions.
fn check_passes(
    c: &mut Checker,
    p: &Spanned<RawPasses>,
    buffers: &BTreeSet<String>,
    known: &BTreeSet<String>,
) -> Option<PassSpec> {
    let pr = p.get_ref();
    check_bufname(c, &pr.input, buffers);
    check_bufname(c, &pr.result, buffers);
    pr.scratch.iter().for_each(|s| check_bufname(c, s, buffers));
    if pr.scratch.len() != 2 {
        c.err(
            p.span(),
            "`passes.scratch` needs exactly two buffers (ping and pong)",
            "here",
        );
        return None;
    }
    Some(PassSpec {
        count: c.expr_text(&pr.count, known)?,
        next: c.expr_text(&pr.next, known)?,
        input: pr.input.get_ref().clone(),
        scratch: [
            pr.scratch[0].get_ref().clone(),
            pr.scratch[1].get_ref().clone(),
        ],
        result: pr.result.get_ref().clone(),
    })
}

/// A variant's `metrics = { … }` may replace `bytes`, `flops` or a custom metric of `[metrics]`;
/// any other name is a mistake (a typo such as `bytez` would otherwise be ignored).
fn check_variant_metric_names(
    c: &mut Checker,
    variants: &[Spanned<RawVariant>],
    metrics: &MetricsSpec,
) {
    let mut names: Vec<&str> = vec!["bytes", "flops"];
    names.extend(metrics.custom.iter().map(|m| m.name.as_str()));
    for v in variants {
        for (name, expr) in &v.get_ref().metrics {
            if !names.contains(&name.as_str()) {
                let help = did_you_mean(name, names.iter().copied());
                c.err_help(
                    expr.span(),
                    format!(
                        "variant `{}` sets metric `{name}`, which is neither `bytes`, `flops` nor a custom metric of `[metrics.custom]`",
                        v.get_ref().name.get_ref()
                    ),
                    "unknown metric",
                    help,
                );
            }
        }
    }
}

fn check_bufname(c: &mut Checker, s: &Spanned<String>, buffers: &BTreeSet<String>) {
    if !buffers.contains(s.get_ref()) {
        let help = did_you_mean(s.get_ref(), buffers.iter().map(String::as_str));
        c.err_help(
            s.span(),
            format!("no buffer named `{}`", s.get_ref()),
            "unknown buffer",
            help,
        );
    }
}

/// The element type a buffer's `type` means when it is written as a CUDA C type (`float` is
/// `f32`), for the help of an unknown type.
fn c_type_name(c: &str) -> Option<&'static str> {
    // `const float*`, `long int`: the qualifiers, the pointer and a trailing `int` say nothing
    // more about the element.
    let mut words: Vec<&str> = c
        .split(|ch: char| ch.is_whitespace() || ch == '*')
        .filter(|w| !w.is_empty() && *w != "const" && *w != "__restrict__")
        .collect();
    if words.len() > 1 && words.last() == Some(&"int") {
        words.pop();
    }
    Some(match words.as_slice() {
        ["float"] => "f32",
        ["double"] => "f64",
        ["half"] | ["__half"] => "f16",
        ["__nv_bfloat16"] | ["bfloat16"] => "bf16",
        ["int"] | ["signed"] | ["int32_t"] => "i32",
        ["unsigned"] | ["uint"] | ["uint32_t"] => "u32",
        ["short"] | ["signed", "short"] | ["int16_t"] => "i16",
        ["unsigned", "short"] | ["uint16_t"] => "u16",
        ["char"] | ["signed", "char"] | ["int8_t"] => "i8",
        ["unsigned", "char"] | ["uint8_t"] => "u8",
        ["long", "long"] | ["int64_t"] | ["long"] | ["signed", "long"] => "i64",
        ["unsigned", "long", "long"] | ["unsigned", "long"] | ["uint64_t"] | ["size_t"] => "u64",
        _ => return None,
    })
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
