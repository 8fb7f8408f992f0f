//! Stage one of directive parsing: the TOML body as written, with spans, before validation.

use serde::Deserialize;
use toml::Spanned;

/// A directive body exactly as written (every field keeps its span for diagnostics).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDirective {
    pub experiment: Spanned<String>,
    pub variants: Option<Spanned<Vec<Spanned<String>>>>,
    pub axes: Option<Spanned<indexmap::IndexMap<String, Spanned<toml::Value>>>>,
    pub zip: Option<Spanned<Vec<ZipGroup>>>,
    pub title: Option<Spanned<String>>,
    pub table: Option<Spanned<OneOrMany<RawTable>>>,
    pub chart: Option<Spanned<OneOrMany<RawChart>>>,
    pub paper: Option<Spanned<String>>,
    pub paper_check: Option<Spanned<Vec<Spanned<String>>>>,
    pub reproduces: Option<Spanned<OneOrMany<String>>>,
    pub expect: Option<Spanned<Vec<Spanned<String>>>>,
    pub devices: Option<Spanned<String>>,
    pub measure: Option<Spanned<RawMeasure>>,
    pub budget_s: Option<Spanned<f64>>,
    pub counters: Option<Spanned<Vec<Spanned<String>>>>,
}

/// One `zip` group: axis names that advance together.
pub(crate) type ZipGroup = Spanned<Vec<Spanned<String>>>;

/// A single value or a list of them (`table = {…}` or `table = [{…}, {…}]`).
#[derive(Debug)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

/// Not `#[serde(untagged)]`: that hides the inner error ("data did not match any variant"), so a
/// typo such as `rws` in `table = { rws = "N" }` would lose its "unknown field" and did-you-mean.
impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        match toml::Value::deserialize(d)? {
            toml::Value::Array(items) => items
                .into_iter()
                .map(|item| T::deserialize(item).map_err(D::Error::custom))
                .collect::<Result<_, _>>()
                .map(OneOrMany::Many),
            other => T::deserialize(other)
                .map(OneOrMany::One)
                .map_err(D::Error::custom),
        }
    }
}

impl<T> OneOrMany<T> {
    pub fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTable {
    pub rows: Option<String>,
    pub columns: Option<String>,
    pub value: Option<String>,
    pub title: Option<String>,
    pub key: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChart {
    pub kind: Option<String>,
    pub x: String,
    pub y: String,
    pub series: Option<String>,
    pub value: Option<String>,
    #[serde(default)]
    pub log_x: bool,
    #[serde(default)]
    pub log_y: bool,
    pub title: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeasure {
    pub timeout_s: Option<f64>,
    pub max_samples: Option<usize>,
    pub min_samples: Option<usize>,
    pub noise: Option<f64>,
    pub mode: Option<String>,
}

/// Parses the TOML body; errors carry spans relative to the body.
pub fn parse(body: &str) -> Result<RawDirective, toml::de::Error> {
    toml::from_str(body)
}
