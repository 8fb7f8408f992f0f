//! The validated experiment spec: buffers, verification, metrics and variants, ready to plan and run.

use crate::expr::Expr;
use crate::value::{ElemType, ParamValue, Unit};
use std::path::PathBuf;

/// A validated `kernels/<name>/experiment.toml`.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub name: String,
    /// The experiment's folder (`kernels/<name>`).
    pub dir: PathBuf,
    pub title: String,
    pub notes: Option<String>,
    /// Extra files (same folder) hashed into every point's key.
    pub includes: Vec<PathBuf>,
    /// Parameters with their defaults, in written order.
    pub params: Vec<(String, ParamValue)>,
    pub buffers: Vec<BufferSpec>,
    pub verify: VerifySpec,
    pub metrics: MetricsSpec,
    pub variants: Vec<Variant>,
    /// Preconditions every planned point must meet (`[[require]]`).
    pub requires: Vec<Requirement>,
}

/// A condition on a point's parameters, with why it must hold.
#[derive(Debug, Clone)]
pub struct Requirement {
    pub expr: Expr,
    pub message: Option<String>,
}

impl Experiment {
    /// How a variant's output is checked: its own override or the spec's.
    pub fn verify_for<'a>(&'a self, variant: &'a Variant) -> &'a VerifySpec {
        variant.verify.as_ref().unwrap_or(&self.verify)
    }

    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }
    pub fn buffer(&self, name: &str) -> Option<&BufferSpec> {
        self.buffers.iter().find(|b| b.name == name)
    }
}

#[derive(Debug, Clone)]
pub struct BufferSpec {
    pub name: String,
    pub elem: ElemType,
    pub len: Expr,
    pub init: Init,
    pub output: bool,
    pub constant: bool,
    pub reset: Reset,
}

/// When a buffer's initial contents are written (`[[buffer]] reset`). Applied identically before
/// the verification run and before every timed sample; the reference always reads the contents the
/// kernel starts from (its `init`, or zeros for `"zero"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reset {
    /// Written once, when the point's buffers are created; an `output` (or pass scratch) buffer is
    /// instead filled with 0xFF bytes before the verification run, so elements the kernel does not
    /// write are caught. Timed runs see whatever the previous run left.
    #[default]
    None,
    /// Restored to its `init` contents (a device-to-device copy of a pristine copy) before every
    /// launch sequence: for a kernel that reads and writes it (`y = a·x + y`).
    Init,
    /// Set to zero bytes (0, or +0.0) before every launch sequence: for an accumulator the kernel
    /// adds into (`atomicAdd` into histogram bins). Its `init` is zero.
    Zero,
}

impl Reset {
    /// Every value, as written in a spec.
    pub const NAMES: [&'static str; 3] = ["none", "init", "zero"];

    pub fn parse(s: &str) -> Option<Reset> {
        Some(match s {
            "none" => Reset::None,
            "init" => Reset::Init,
            "zero" => Reset::Zero,
            _ => return None,
        })
    }

    /// Whether the buffer is rewritten before every launch sequence.
    pub(crate) fn every_run(self) -> bool {
        self != Reset::None
    }
}

pub use crate::host_data::init::Init;

#[derive(Debug, Clone)]
pub enum Reference {
    /// A built-in CPU reference (`matmul`, `transpose`, …).
    Builtin(String),
    /// Another variant's output.
    Variant(String),
}

#[derive(Debug, Clone)]
pub struct VerifySpec {
    pub reference: Reference,
    pub inputs: Vec<String>,
    pub output: String,
    pub dims: Vec<(String, Expr)>,
    /// Relative, for float outputs: the spec's, else the output type's default; infinite (the
    /// derived bound alone) for a float output of an accumulating built-in reference.
    pub tolerance: f64,
    pub formula: Option<Expr>,
}

#[derive(Debug, Clone)]
pub struct CustomMetric {
    pub name: String,
    pub expr: Expr,
    pub unit: Unit,
    pub label: String,
    /// From its unit as written ([`crate::value::better_of_unit_text`]).
    pub better: Option<crate::value::Better>,
}

#[derive(Debug, Clone, Default)]
pub struct MetricsSpec {
    pub bytes: Option<Expr>,
    pub flops: Option<Expr>,
    pub custom: Vec<CustomMetric>,
}

/// What a variant executes.
#[derive(Debug, Clone, PartialEq)]
pub enum Exec {
    /// The kernels of `Variant::launches`, compiled together from `source` with the variant's defines.
    Kernel {
        source: PathBuf,
    },
    Cpu(String),
    Library(String),
}

/// A scalar kernel argument's type: any element type (`{ u8 = "…" }`, `{ f16 = "…" }`).
pub type ScalarType = ElemType;

#[derive(Debug, Clone)]
pub enum ArgSpec {
    Buffer(String),
    /// `@in` / `@out` inside a multi-pass variant.
    PassIn,
    PassOut,
    Scalar(ScalarType, Expr),
}

/// One launch of a variant's sample.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The kernel's name; empty for a CPU baseline or library call.
    pub kernel: String,
    pub grid: Vec<Expr>,
    pub block: Vec<Expr>,
    pub shared: Option<Expr>,
    pub args: Vec<ArgSpec>,
}

#[derive(Debug, Clone)]
pub struct LoopSpec {
    pub var: String,
    pub count: Expr,
}

#[derive(Debug, Clone)]
pub struct PassSpec {
    pub count: Expr,
    pub next: Expr,
    pub input: String,
    pub scratch: [String; 2],
    pub result: String,
}

#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    pub label: String,
    pub exec: Exec,
    /// `-D NAME=value`: value is an expression, or a literal string.
    pub defines: Vec<(String, DefineValue)>,
    /// The launches of one sample, in order: one, or a `[[variant.launch]]` sequence. A CPU
    /// baseline or library call has one without a kernel, whose `args` only its key reads.
    pub launches: Vec<Launch>,
    /// Repeats the one launch (a host loop, or passes); never with several launches.
    pub loop_: Option<LoopSpec>,
    pub passes: Option<PassSpec>,
    pub options: Vec<String>,
    /// Custom metric formulas that differ for this variant.
    pub metrics: Vec<(String, Expr)>,
    /// This variant's verification, when it overrides the spec's `[verify]`.
    pub verify: Option<VerifySpec>,
    /// `min_arch`: the oldest architecture that runs it (`(9, 0)`); on an older GPU its points
    /// are not applicable.
    pub min_arch: Option<(u32, u32)>,
}

#[derive(Debug, Clone)]
pub enum DefineValue {
    Expr(Expr),
    Literal(String),
}
