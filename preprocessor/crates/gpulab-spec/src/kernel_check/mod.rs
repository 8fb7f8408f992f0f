//! A kernel variant checked against the PTX NVRTC compiled for it, so that `check` finds without a
//! GPU what only a launch would: a kernel name missing from the module (or mangled, for want of
//! `extern "C"`), arguments that do not match the kernel's parameters in number or kind, a block
//! larger than the kernel's `__launch_bounds__`, and shared memory beyond the architecture's limits.
//! Each diagnostic points at the spec's line (the launch, the arguments) or the kernel's `.cu` line.
//! Without NVRTC only the name is checked, against the source's `__global__` functions.

mod source_scan;
pub use source_scan::SourceScan;

use crate::diagnostic::{Diagnostic, did_you_mean, suggest};
use crate::limits::ArchLimits;
use crate::point_check::nominal_vars;
use crate::ptx::{self, Param};
use crate::source::SourceFile;
use crate::spec::raw::{RawSpec, RawVariant};
use crate::spec::{ArgSpec, Exec, Launch, ScalarType, Variant};
use crate::value::ParamValue;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// What the kernels are checked for.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Compute capability, `(9, 0)` for sm_90.
    pub arch: (u32, u32),
    /// Its per-block limits; `None` when not known (shared memory then goes unchecked).
    pub limits: Option<ArchLimits>,
}

impl Target {
    fn sm(&self) -> String {
        format!("sm_{}{}", self.arch.0, self.arch.1)
    }
}

/// An experiment's `experiment.toml`, as shown in diagnostics and parsed with spans.
pub struct SpecText {
    file: SourceFile,
    raw: Option<RawSpec>,
}

impl SpecText {
    /// `shown` is the path diagnostics print (relative to the book's root).
    pub fn new(shown: PathBuf, text: &str) -> Self {
        SpecText {
            raw: crate::spec::raw::parse(text).ok(),
            file: SourceFile::new(shown, text),
        }
    }

    fn variant(&self, name: &str) -> Option<&RawVariant> {
        self.raw
            .as_ref()?
            .variants
            .iter()
            .map(|v| v.get_ref())
            .find(|v| v.name.get_ref() == name)
    }

    fn line(&self, span: &Range<usize>) -> String {
        let (line, _) = crate::diagnostic::line_col(&self.file.text, span.start);
        format!("{}:{line}", self.file.path.display())
    }
}

/// One planned point: every parameter, and the directive's axes (named in diagnostics).
#[derive(Debug, Clone, Copy)]
pub struct PointAt<'a> {
    pub params: &'a BTreeMap<String, ParamValue>,
    pub axes: &'a BTreeMap<String, ParamValue>,
}

/// Where a variant's keys are written in its spec.
struct Spans {
    kernel: Range<usize>,
    args: Vec<Range<usize>>,
    block: Range<usize>,
    shared: Option<Range<usize>>,
}

impl Spans {
    /// Where launch `index` of `variant` is written.
    fn of(spec: &SpecText, variant: &str, index: usize) -> Spans {
        let raw = spec.variant(variant);
        let launches = raw.map(|v| v.launches()).unwrap_or_default();
        let (Some(v), Some(l)) = (raw, launches.get(index)) else {
            return Spans {
                kernel: 0..0,
                args: Vec::new(),
                block: 0..0,
                shared: None,
            };
        };
        let kernel = l.kernel.map_or(v.name.span(), |k| k.span());
        let block: Vec<_> = l.block.iter().map(|b| b.span()).collect();
        Spans {
            args: l.args.iter().map(|a| a.span()).collect(),
            block: join(&block, &kernel),
            shared: l.shared.map(|s| s.span()),
            kernel,
        }
    }

    fn all_args(&self) -> Range<usize> {
        join(&self.args, &self.kernel)
    }

    /// Where argument `i` is written, else all of them.
    fn arg(&self, i: usize) -> Range<usize> {
        self.args.get(i).cloned().unwrap_or_else(|| self.all_args())
    }
}

/// From the first span's start to the last one's end; `or` when there are none.
fn join(spans: &[Range<usize>], or: &Range<usize>) -> Range<usize> {
    match (spans.first(), spans.last()) {
        (Some(a), Some(b)) => a.start..b.end,
        _ => or.clone(),
    }
}

/// Every problem of kernel variant `variant` compiled into `module`, at each of its `points`.
/// `root` is the book's root (to find the `.cu` file a kernel's `.loc` names).
pub fn check_variant(
    root: &Path,
    target: Target,
    spec: &SpecText,
    variant: &Variant,
    module: &ptx::Module,
    points: &[PointAt],
) -> Vec<Diagnostic> {
    let Exec::Kernel { source } = &variant.exec else {
        return Vec::new();
    };
    let cu = CuFile {
        root,
        source: source.as_path(),
    };
    let mut out = Vec::new();
    for (index, launch) in variant.launches.iter().enumerate() {
        let spans = Spans::of(spec, &variant.name, index);
        let at = (spec, &spans, variant, launch);
        out.extend(check_launch(at, &cu, target, module, points));
    }
    out
}

/// Where a launch is written, and what: the spec, the launch's spans, its variant and itself.
type LaunchAt<'a> = (&'a SpecText, &'a Spans, &'a Variant, &'a Launch);

/// One launch's kernel, arguments, block and shared memory at each of `points`.
fn check_launch(
    (spec, spans, variant, launch): LaunchAt,
    cu: &CuFile,
    target: Target,
    module: &ptx::Module,
    points: &[PointAt],
) -> Vec<Diagnostic> {
    let function = &launch.kernel;
    let Some(entry) = module.entry(function) else {
        return vec![missing_kernel(spec, spans, variant, function, cu, module)];
    };
    let kernel = Kernel {
        entry,
        at: cu.locate(entry),
    };
    let mut out = arguments(spec, spans, variant, launch, &kernel);
    if let Some(limits) = target.limits
        && entry.static_shared > limits.static_shared
    {
        out.push(kernel.at.error(
            format!(
                "kernel `{function}` declares {} bytes of static `__shared__` memory; {} allows {} per block",
                entry.static_shared,
                target.sm(),
                limits.static_shared
            ),
            "static shared memory",
            format!(
                "declare the array `extern __shared__` and give its size in the spec (`shared = \"…\"`): dynamic shared memory may take up to {} bytes on {} (the engine opts in for you)",
                limits.shared_optin,
                target.sm()
            ),
        ));
    }
    out.extend(launches(
        spec,
        spans,
        (variant, launch),
        &kernel,
        target,
        points,
    ));
    out
}

/// The `.cu` file a variant compiles, and the book's root to resolve the paths PTX records.
struct CuFile<'a> {
    root: &'a Path,
    source: &'a Path,
}

impl CuFile<'_> {
    /// The file and line where `entry` is defined (the variant's source, line unknown, when the
    /// PTX has no `.loc` for it).
    fn locate(&self, entry: &ptx::Entry) -> At {
        let (path, line) = match &entry.defined_at {
            Some(at) => (
                resolve(self.root, &at.file).unwrap_or_else(|| self.source.to_path_buf()),
                Some(at.line),
            ),
            None => (self.source.to_path_buf(), None),
        };
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let shown = path.strip_prefix(self.root).unwrap_or(&path).to_path_buf();
        let name = ptx::demangled_name(&entry.name)
            .and_then(|n| n.rsplit("::").next().map(String::from))
            .unwrap_or_else(|| entry.name.clone());
        let span = line.map_or(0..0, |l| name_span(&text, l as usize, &name));
        let line = line.map_or(String::new(), |l| format!(":{l}"));
        At {
            place: format!("{}{line}", shown.display()),
            file: SourceFile::new(shown, text),
            span,
        }
    }
}

/// A path PTX records (NVRTC joins a relative program name to its own working directory) found
/// below `root`: the longest tail of it that exists there.
fn resolve(root: &Path, recorded: &str) -> Option<PathBuf> {
    let parts: Vec<_> = Path::new(recorded).components().collect();
    (0..parts.len())
        .map(|i| parts[i..].iter().collect::<PathBuf>())
        .filter(|tail| tail.is_relative())
        .map(|tail| root.join(tail))
        .find(|p| p.is_file())
}

/// The span of `name` on line `line` (1-based) of `text`, else of the whole line.
fn name_span(text: &str, line: usize, name: &str) -> Range<usize> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let Some(this) = text[start.min(text.len())..].lines().next() else {
        return start..start;
    };
    let found = this.match_indices(name).find(|(i, _)| {
        let before = this[..*i].chars().next_back();
        let after = this[i + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    });
    match found {
        Some((i, _)) => start + i..start + i + name.len(),
        None => {
            let indent = this.len() - this.trim_start().len();
            start + indent..start + this.trim_end().len()
        }
    }
}

/// A kernel's place in its `.cu` file.
struct At {
    file: SourceFile,
    span: Range<usize>,
    /// `kernels/x/x.cu:12`.
    place: String,
}

impl At {
    fn error(&self, message: String, label: &str, help: String) -> Diagnostic {
        self.file
            .error(self.span.clone(), message, label)
            .with_help(help)
    }
}

struct Kernel<'a> {
    entry: &'a ptx::Entry,
    at: At,
}

impl Kernel<'_> {
    fn signature(&self) -> String {
        let params: Vec<String> = self.entry.params.iter().map(|p| p.describe()).collect();
        format!(
            "`{}` ({}) takes ({})",
            self.entry.name,
            self.at.place,
            params.join(", ")
        )
    }
}

/// A kernel name the module lacks: mangled (no `extern "C"`: reported at the `.cu` line) or
/// misspelled (reported at the spec's `kernel = …`).
fn missing_kernel(
    spec: &SpecText,
    spans: &Spans,
    variant: &Variant,
    function: &str,
    cu: &CuFile,
    module: &ptx::Module,
) -> Diagnostic {
    let named_at = spec.line(&spans.kernel);
    if let Some(mangled) = module.mangled(function).first() {
        let at = cu.locate(mangled);
        return at.error(
            format!(
                "kernel `{function}` is compiled under the C++ name `{}`, so variant `{}` ({named_at}) cannot find it",
                mangled.name, variant.name
            ),
            "declared without `extern \"C\"`",
            format!(
                "declare it `extern \"C\" __global__ void {function}(…)`: C++ mangles the name of any other kernel, and a spec names kernels by their plain name (a template kernel cannot be `extern \"C\"`: turn its template parameters into `defines`)"
            ),
        );
    }
    let names: Vec<&str> = module
        .entries
        .iter()
        .filter(|e| ptx::demangled_name(&e.name).is_none())
        .map(|e| e.name.as_str())
        .collect();
    let listed = match names.is_empty() {
        true => "it has no `extern \"C\"` kernels".to_string(),
        false => format!(
            "its kernels: {}",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let help = match did_you_mean(function, names.iter().copied()) {
        Some(dym) => format!("{dym} ({listed})"),
        None => listed,
    };
    let source = cu.source.strip_prefix(cu.root).unwrap_or(cu.source);
    spec.file
        .error(
            spans.kernel.clone(),
            format!(
                "variant `{}`: kernel `{function}` is not in the module compiled from {}",
                variant.name,
                source.display()
            ),
            "no such kernel",
        )
        .with_help(help)
}

/// Without NVRTC: each launch's kernel name against the `__global__` functions of its variant's
/// source. Only a name that occurs nowhere in the source, the files it includes or its build's
/// `options` is reported: a name a macro makes cannot be told from a typo without the compiler.
pub fn check_name_in_source(
    root: &Path,
    spec: &SpecText,
    variant: &Variant,
    scan: &SourceScan,
    options: &[String],
) -> Vec<Diagnostic> {
    let Exec::Kernel { source } = &variant.exec else {
        return Vec::new();
    };
    let in_options = |function: &str| {
        options
            .iter()
            .flat_map(|o| o.split(|c: char| !(c.is_alphanumeric() || c == '_')))
            .any(|word| word == function)
    };
    let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let names: Vec<&str> = scan.kernels.iter().map(|k| k.name.as_str()).collect();
    let listed = match names.is_empty() {
        true => "it defines no `__global__` function".to_string(),
        false => format!("its kernels: `{}`", names.join("`, `")),
    };
    let mut out = Vec::new();
    for (index, launch) in variant.launches.iter().enumerate() {
        let function = &launch.kernel;
        if in_options(function) || scan.identifiers.contains(function) {
            continue;
        }
        let near = suggest(function, names.iter().copied())
            .and_then(|near| scan.kernels.iter().find(|k| k.name == near));
        let help = match near {
            Some(k) => format!(
                "did you mean `{}` ({}:{})? ({listed})",
                k.name,
                shown(&k.file),
                k.line
            ),
            None => listed.clone(),
        };
        let message = format!(
            "variant `{}`: kernel `{function}` is not defined in {} or the files it includes",
            variant.name,
            shown(source)
        );
        let span = Spans::of(spec, &variant.name, index).kernel;
        out.push(
            spec.file
                .error(span, message, "no such kernel")
                .with_help(help),
        );
    }
    out
}

/// The spec's scalar type as PTX writes it (signedness is not in PTX).
fn scalar_param(ty: ScalarType) -> Param {
    let bits = 8 * ty.size_of() as u32;
    match ty {
        // `__half` / `__nv_bfloat16` are structs of 2 bytes: `.param .align 2 .b8 name[2]`.
        ScalarType::F16 | ScalarType::BF16 => Param::Bytes { len: 2 },
        _ if ty.is_float() => Param::Float { bits },
        _ => Param::Int { bits },
    }
}

/// What to write in the spec to pass a parameter of this kind.
fn how_to_pass(p: Param, expr: &str) -> String {
    let write = |types: &str| format!("write {types}");
    let typed = |t: &str| format!("`{{ {t} = \"{expr}\" }}`");
    match p {
        Param::Float { bits: 32 } => write(&typed("f32")),
        Param::Float { bits: 64 } => write(&typed("f64")),
        Param::Int { bits: 8 } => write(&format!("{} or {}", typed("u8"), typed("i8"))),
        Param::Int { bits: 16 } => write(&format!("{} or {}", typed("u16"), typed("i16"))),
        Param::Int { bits: 32 } => write(&format!("`\"{expr}\"` (an `i32`) or {}", typed("u32"))),
        Param::Int { bits: 64 } => format!(
            "pass a buffer's name, or write {} or {} for a 64-bit integer",
            typed("i64"),
            typed("u64")
        ),
        Param::Bytes { len: 2 } => format!(
            "for a `__half` or `__nv_bfloat16` parameter write {} or {}; a spec passes no other struct",
            typed("f16"),
            typed("bf16")
        ),
        Param::Bytes { .. } => "a spec passes buffers and scalars, not structs: pass the struct's fields as separate parameters, or the struct through a buffer".into(),
        Param::Int { bits } | Param::Float { bits } => format!(
            "a spec has no {bits}-bit scalar argument of this kind: declare the parameter with another type"
        ),
    }
}

/// The argument count, then each argument's kind against its parameter's.
fn arguments(
    spec: &SpecText,
    spans: &Spans,
    variant: &Variant,
    launch: &Launch,
    kernel: &Kernel,
) -> Vec<Diagnostic> {
    let params = &kernel.entry.params;
    let name = &kernel.entry.name;
    if launch.args.len() != params.len() {
        return vec![
            spec.file
                .error(
                    spans.all_args(),
                    format!(
                        "variant `{}` passes {} argument(s) to kernel `{name}`, which takes {}",
                        variant.name,
                        launch.args.len(),
                        params.len()
                    ),
                    format!("{} argument(s)", launch.args.len()),
                )
                .with_help(kernel.signature()),
        ];
    }
    let mut out = Vec::new();
    let declared = declared_params(&kernel.at).filter(|d| d.len() == params.len());
    for (i, (arg, &param)) in launch.args.iter().zip(params).enumerate() {
        let n = i + 1;
        let (passed, wanted, help) = match arg {
            ArgSpec::Buffer(_) | ArgSpec::PassIn | ArgSpec::PassOut => {
                let what = match arg {
                    ArgSpec::Buffer(b) => format!("buffer `{b}`"),
                    ArgSpec::PassIn => "`@in`".into(),
                    _ => "`@out`".into(),
                };
                (
                    format!("{what}, a pointer (64 bits)"),
                    Param::Int { bits: 64 },
                    "pass a scalar here (or give the parameter a pointer type)".to_string(),
                )
            }
            ArgSpec::Scalar(ty, e) => (
                format!(
                    "`{}` as an `{}` ({})",
                    e.source(),
                    ty.name(),
                    scalar_param(*ty).describe()
                ),
                scalar_param(*ty),
                how_to_pass(param, e.source()),
            ),
        };
        if wanted == param {
            // PTX agrees; where it cannot tell a pointer from a 64-bit integer, the source can.
            out.extend(
                declared
                    .as_ref()
                    .and_then(|d| pointer_mismatch(spec, spans, variant, kernel, i, arg, &d[i])),
            );
            continue;
        }
        let span = spans.arg(i);
        out.push(
            spec.file
                .error(
                    span,
                    format!(
                        "variant `{}`: argument {n} is {passed}, but parameter {n} of kernel `{name}` is {}",
                        variant.name,
                        param.describe()
                    ),
                    format!("parameter {n} is {}", param.describe()),
                )
                .with_help(format!("{help}; {}", kernel.signature())),
        );
    }
    out
}

/// Each parameter's declaration as the kernel's source writes it (the text between the
/// parentheses after its name, split at top-level commas), when the definition can be read there.
fn declared_params(at: &At) -> Option<Vec<String>> {
    let text = at.file.text.get(at.span.end..)?;
    let open = text.find('(')?;
    if !text[..open].trim().is_empty() {
        return None;
    }
    let (mut depth, mut start, mut out) = (0, open + 1, Vec::new());
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => {
                depth -= 1;
                if depth == 0 {
                    out.push(text[start..i].trim().to_string());
                    break;
                }
            }
            ',' if depth == 1 => {
                out.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if out.len() == 1 && matches!(out[0].as_str(), "" | "void") {
        out.clear();
    }
    Some(out)
}

/// A 64-bit argument whose kind PTX cannot tell (a pointer and a 64-bit integer are both
/// `.u64`) against the parameter's declaration in the source: a scalar passed where the kernel
/// takes a pointer, or a buffer where it takes an integer.
fn pointer_mismatch(
    spec: &SpecText,
    spans: &Spans,
    variant: &Variant,
    kernel: &Kernel,
    i: usize,
    arg: &ArgSpec,
    decl: &str,
) -> Option<Diagnostic> {
    let pointer = decl.contains('*') || decl.contains('[');
    let (passed, wanted, help) = match arg {
        ArgSpec::Scalar(ty, e) if pointer => (
            format!("the {} scalar `{}`", ty.name(), e.source()),
            "a pointer",
            "pass a buffer's name here",
        ),
        ArgSpec::Buffer(b) if !pointer => (
            format!("buffer `{b}`, a pointer"),
            "a 64-bit integer",
            "pass a scalar here (or give the parameter a pointer type)",
        ),
        _ => return None,
    };
    let n = i + 1;
    let span = spans.arg(i);
    Some(
        spec.file
            .error(
                span,
                format!(
                    "variant `{}`: argument {n} is {passed}, but parameter {n} of kernel `{}` is {wanted} (`{decl}`, {})",
                    variant.name, kernel.entry.name, kernel.at.place
                ),
                format!("parameter {n} is {wanted}"),
            )
            .with_help(format!("{help}; {}", kernel.signature())),
    )
}

/// One kind of launch problem, with the first point it occurs at and how many points have it.
struct Seen {
    span: Range<usize>,
    message: String,
    help: String,
    axes: BTreeMap<String, ParamValue>,
    count: usize,
}

/// A launch problem: its kind (each kind is reported once, at its first point), where, what, and
/// how to fix it.
type Problem = (&'static str, Range<usize>, String, String);

/// The block shape and shared memory at each point, against the kernel and the architecture.
fn launches(
    spec: &SpecText,
    spans: &Spans,
    (variant, launch): (&Variant, &Launch),
    kernel: &Kernel,
    target: Target,
    points: &[PointAt],
) -> Vec<Diagnostic> {
    let mut seen: BTreeMap<&str, Seen> = BTreeMap::new();
    for p in points {
        for (key, span, message, help) in launch_problems(spans, launch, kernel, target, p) {
            seen.entry(key)
                .and_modify(|s| s.count += 1)
                .or_insert(Seen {
                    span,
                    message,
                    help,
                    axes: p.axes.clone(),
                    count: 1,
                });
        }
    }
    seen.into_iter()
        .map(|(key, s)| {
            let at = match s.axes.is_empty() {
                true => String::new(),
                false => format!(
                    " at {}",
                    s.axes
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let more = match s.count {
                1 => String::new(),
                n => format!(" (and {} more point(s))", n - 1),
            };
            let mut d = spec
                .file
                .error(
                    s.span,
                    format!("variant `{}`{at}: {}{more}", variant.name, s.message),
                    "launched here",
                )
                .with_help(s.help);
            if key == NOT_APPLICABLE {
                d.level = crate::diagnostic::Level::Warning;
            }
            d
        })
        .collect()
}

/// The problem of a launch that a newer GPU of the family can make: not applicable on this
/// architecture (a warning), where the others are errors.
const NOT_APPLICABLE: &str = "not applicable";

/// The problems of the launch at point `p`: its block shape against the kernel's `.reqntid` or
/// `__launch_bounds__`, its shared memory against the kernel and the architecture.
fn launch_problems(
    spans: &Spans,
    launch: &Launch,
    kernel: &Kernel,
    target: Target,
    p: &PointAt,
) -> Vec<Problem> {
    let entry = kernel.entry;
    let name = &entry.name;
    let mut out: Vec<Problem> = Vec::new();
    let vars = nominal_vars(p.params);
    let eval = |e: &crate::expr::Expr| e.eval(&vars).ok().and_then(|n| n.as_i64());
    let block: Option<Vec<i64>> = launch.block.iter().map(eval).collect();
    let dynamic = launch.shared.as_ref().map(eval);
    if let Some(block) = &block {
        let mut shape = [1u64; 3];
        for (d, b) in shape.iter_mut().zip(block) {
            *d = (*b).max(0) as u64;
        }
        let threads: u64 = shape.iter().product();
        if let Some(req) = entry.required_threads
            && req != shape
        {
            out.push((
                "reqntid",
                spans.block.clone(),
                format!(
                    "a block of {shape:?}, but kernel `{name}` must be launched with exactly {req:?} (`.reqntid`, {})",
                    kernel.at.place
                ),
                "launch it with that block shape".into(),
            ));
        } else if let Some(max) = entry.max_threads
            && threads > max.iter().product()
        {
            let max: u64 = max.iter().product();
            out.push((
                "maxntid",
                spans.block.clone(),
                format!(
                    "a block of {threads} threads, but kernel `{name}` is declared `__launch_bounds__({max})` ({}): the launch would fail",
                    kernel.at.place
                ),
                format!(
                    "launch at most {max} threads per block, or raise the kernel's `__launch_bounds__`"
                ),
            ));
        }
    }
    let dynamic = match dynamic {
        Some(None) => return out,
        Some(Some(d)) => d.max(0) as u64,
        None => 0,
    };
    let shared_span = || spans.shared.clone().unwrap_or_else(|| spans.kernel.clone());
    if let Some(used) = entry.dynamic_shared.first()
        && dynamic == 0
    {
        out.push((
            "no-dynamic",
            shared_span(),
            format!(
                "kernel `{name}` uses dynamic shared memory (`extern __shared__ … {used}[]`, {}) but gets 0 bytes",
                kernel.at.place
            ),
            "give its size in bytes with `shared = \"…\"` in this variant".into(),
        ));
    }
    if let Some(limits) = target.limits
        && entry.static_shared <= limits.static_shared
        && entry.static_shared + dynamic > limits.shared_optin
    {
        let fits_a_newer_gpu = entry.static_shared + dynamic <= crate::limits::MAX_SHARED_BYTES;
        out.push((
            if fits_a_newer_gpu { NOT_APPLICABLE } else { "optin" },
            shared_span(),
            format!(
                "{}{dynamic} bytes of dynamic shared memory plus the {} bytes kernel `{name}` declares statically ({}) exceed the {} bytes {} allows per block",
                if fits_a_newer_gpu { format!("not applicable on {}: ", target.sm()) } else { String::new() },
                entry.static_shared,
                kernel.at.place,
                limits.shared_optin,
                target.sm()
            ),
            format!(
                "at most {} bytes of `shared` with this kernel on {} (the engine opts in above 48 KiB for you)",
                limits.shared_optin.saturating_sub(entry.static_shared),
                target.sm()
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests;
