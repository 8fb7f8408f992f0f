//! Stage one of spec parsing: `experiment.toml` as written, with spans.

use serde::Deserialize;
use toml::Spanned;

type S<T> = Spanned<T>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub title: S<String>,
    pub source: Option<S<String>>,
    #[serde(default)]
    pub includes: Vec<S<String>>,
    #[serde(default)]
    pub params: indexmap::IndexMap<String, S<toml::Value>>,
    #[serde(default, rename = "buffer")]
    pub buffers: Vec<S<RawBuffer>>,
    pub verify: S<RawVerify>,
    #[serde(default)]
    pub metrics: RawMetrics,
    #[serde(rename = "variant")]
    pub variants: Vec<S<RawVariant>>,
    /// Preconditions on the parameters (`[[require]]`): a planned point that breaks one is an error.
    #[serde(default, rename = "require")]
    pub requires: Vec<S<RawRequire>>,
    /// Free text shown under the experiment's outputs (optional).
    pub notes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRequire {
    pub expr: S<String>,
    /// Why the condition must hold, shown when it does not.
    pub message: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuffer {
    pub name: S<String>,
    #[serde(rename = "type")]
    pub ty: S<String>,
    pub len: S<String>,
    pub init: Option<S<toml::Value>>,
    #[serde(default)]
    pub output: bool,
    #[serde(default)]
    pub constant: bool,
    /// `"none"` (default), `"init"` or `"zero"`: see `spec::Reset`.
    pub reset: Option<S<String>>,
}

/// `[verify]`, or a variant's `verify = { … }` whose keys replace the spec's.
#[derive(Debug, Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct RawVerify {
    pub reference: Option<S<String>>,
    pub inputs: Option<Vec<S<String>>>,
    pub output: Option<S<String>>,
    pub dims: Option<indexmap::IndexMap<String, S<toml::Value>>>,
    pub tolerance: Option<f64>,
    /// For `reference = "formula"`: the expected value of element `i`.
    pub formula: Option<S<String>>,
}

impl RawVerify {
    /// `self` with every key `patch` sets replaced.
    pub(crate) fn patched(&self, patch: &RawVerify) -> RawVerify {
        RawVerify {
            reference: patch.reference.clone().or_else(|| self.reference.clone()),
            inputs: patch.inputs.clone().or_else(|| self.inputs.clone()),
            output: patch.output.clone().or_else(|| self.output.clone()),
            dims: patch.dims.clone().or_else(|| self.dims.clone()),
            tolerance: patch.tolerance.or(self.tolerance),
            formula: patch.formula.clone().or_else(|| self.formula.clone()),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMetrics {
    pub bytes: Option<S<String>>,
    pub flops: Option<S<String>>,
    #[serde(default)]
    pub custom: indexmap::IndexMap<String, S<RawCustomMetric>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCustomMetric {
    pub expr: S<String>,
    #[serde(default)]
    pub unit: String,
    pub label: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    pub name: S<String>,
    pub label: Option<String>,
    pub kernel: Option<S<String>>,
    pub cpu: Option<S<String>>,
    pub library: Option<S<String>>,
    pub source: Option<S<String>>,
    #[serde(default)]
    pub defines: indexmap::IndexMap<String, S<toml::Value>>,
    #[serde(default)]
    pub grid: Vec<S<ExprText>>,
    #[serde(default)]
    pub block: Vec<S<ExprText>>,
    pub shared: Option<S<ExprText>>,
    #[serde(default)]
    pub args: Vec<S<toml::Value>>,
    #[serde(rename = "loop")]
    pub loop_: Option<S<RawLoop>>,
    pub passes: Option<S<RawPasses>>,
    /// Several launches timed as one sample (`[[variant.launch]]`), instead of `kernel`, `grid`, …
    #[serde(default)]
    pub launch: Vec<S<RawLaunch>>,
    /// This variant's formulas for custom metrics (replacing the spec's of the same name).
    #[serde(default)]
    pub metrics: indexmap::IndexMap<String, S<String>>,
    /// Replaces keys of the spec's `[verify]` for this variant.
    pub verify: Option<S<RawVerify>>,
    /// Extra NVRTC options for this variant.
    #[serde(default)]
    pub options: Vec<String>,
    /// The oldest compute capability that can run it, as `90` for sm_90.
    pub min_arch: Option<S<u32>>,
}

/// One launch of a `[[variant.launch]]` sequence: a kernel of the variant's source.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLaunch {
    pub kernel: S<String>,
    #[serde(default)]
    pub grid: Vec<S<ExprText>>,
    #[serde(default)]
    pub block: Vec<S<ExprText>>,
    pub shared: Option<S<ExprText>>,
    #[serde(default)]
    pub args: Vec<S<toml::Value>>,
}

/// The keys of one launch as written: a `[[variant.launch]]` table, or the variant's own keys.
pub struct LaunchKeys<'a> {
    pub kernel: Option<&'a S<String>>,
    pub grid: &'a [S<ExprText>],
    pub block: &'a [S<ExprText>],
    pub shared: Option<&'a S<ExprText>>,
    pub args: &'a [S<toml::Value>],
}

impl RawVariant {
    /// Each launch's keys, in order: the `[[variant.launch]]` tables, else the variant's own keys.
    pub fn launches(&self) -> Vec<LaunchKeys<'_>> {
        if self.launch.is_empty() {
            return vec![LaunchKeys {
                kernel: self.kernel.as_ref(),
                grid: &self.grid,
                block: &self.block,
                shared: self.shared.as_ref(),
                args: &self.args,
            }];
        }
        self.launch
            .iter()
            .map(|l| {
                let l = l.get_ref();
                LaunchKeys {
                    kernel: Some(&l.kernel),
                    grid: &l.grid,
                    block: &l.block,
                    shared: l.shared.as_ref(),
                    args: &l.args,
                }
            })
            .collect()
    }
}

/// An expression written as a string or a bare number.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ExprText {
    Text(String),
    Int(i64),
    Float(f64),
}

impl ExprText {
    pub fn text(&self) -> String {
        match self {
            ExprText::Text(s) => s.clone(),
            ExprText::Int(i) => i.to_string(),
            ExprText::Float(f) => f.to_string(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLoop {
    pub var: S<String>,
    pub count: S<ExprText>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPasses {
    pub count: S<ExprText>,
    pub next: S<ExprText>,
    pub input: S<String>,
    pub scratch: Vec<S<String>>,
    pub result: S<String>,
}

pub fn parse(text: &str) -> Result<RawSpec, toml::de::Error> {
    toml::from_str(text)
}
