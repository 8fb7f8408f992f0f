//! Cache keys: what decides whether a recorded point is still current. Computed from the book's
//! files alone (no NVRTC, no GPU), so every machine computes the same key (see DESIGN.md, "Keys
//! and provenance").

pub(crate) mod normalise;
mod spec_repr;

use crate::error::{Error, Result};
use crate::ptx::FIXED_COMPILE_OPTIONS;
use crate::spec::{Exec, Experiment, Reference, Variant};
use crate::value::ParamValue;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bump when the meaning of a key changes (e.g. the engine's measurement method).
/// `gpulab-key-2`: normalised sources, spec semantics instead of spec text, compile options,
/// device; derived-metric formulas left out (they are applied when the book renders).
pub const KEY_VERSION: &str = "gpulab-key-2";

/// A point's key before the device is named: everything the point's code and inputs depend on.
/// The recorded key is [`PointKey::on`] the device (a recording only matches its own device).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct PointKey(String);

impl PointKey {
    /// The device-free key's text (what a worker reports before the recorder names the device).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key recorded for this point on the device with this slug.
    pub fn on(&self, device: &str) -> String {
        let mut h = Sha256::new();
        h.update(&self.0);
        h.update([0]);
        h.update(device);
        hex16(&h.finalize())
    }
}

/// A key from its text (tests, and keys read back from a job).
impl From<&str> for PointKey {
    fn from(s: &str) -> Self {
        PointKey(s.to_string())
    }
}

/// Reads each kernel source once per process and keeps its normalised digest (with the files it
/// `#include`s by quoted name), so a build hashes each file once, not once per point.
#[derive(Default)]
pub struct SourceCache {
    files: Mutex<HashMap<PathBuf, std::result::Result<String, String>>>,
    digests: Mutex<HashMap<PathBuf, std::result::Result<[u8; 32], String>>>,
}

impl SourceCache {
    /// The file's text as written.
    pub fn read(&self, path: &Path) -> Result<String> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        let entry = files
            .entry(path.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(path).map_err(|e| e.to_string()));
        entry.clone().map_err(|e| Error::io(path, e))
    }

    /// Digest of the file's normalised text and, recursively, of the files its `#include "…"`
    /// lines name that exist beside it (others are the toolkit's or NVRTC's error to report).
    pub fn digest(&self, path: &Path) -> Result<[u8; 32]> {
        if let Some(d) = self
            .digests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
        {
            return d.clone().map_err(|e| Error::io(path, e));
        }
        let computed = self.compute_digest(path, &mut Vec::new());
        let stored = computed.as_ref().map(|d| *d).map_err(|e| e.to_string());
        self.digests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_path_buf(), stored);
        computed
    }

    fn compute_digest(&self, path: &Path, stack: &mut Vec<PathBuf>) -> Result<[u8; 32]> {
        let text = normalise::normalise(&self.read(path)?);
        let mut h = Sha256::new();
        h.update(&text);
        stack.push(path.to_path_buf());
        let dir = path.parent().unwrap_or(Path::new(""));
        for name in normalise::quoted_includes(&text) {
            let inc = dir.join(&name);
            h.update([0]);
            h.update(&name);
            if stack.contains(&inc) || !inc.is_file() {
                continue; // include guards make cycles legal; a missing file fails to compile
            }
            h.update(self.compute_digest(&inc, stack)?);
        }
        stack.pop();
        Ok(h.finalize().into())
    }
}

/// The part of a key shared by every point of one variant: computed once per variant.
pub(crate) struct VariantKey {
    digest: [u8; 32],
}

impl VariantKey {
    /// Hashes the experiment's name and buffers, the variant's semantics, its effective
    /// verification (with the reference variant's code, when it is checked against one), the
    /// normalised sources and includes, and the fixed compile options.
    pub(crate) fn new(
        exp: &Experiment,
        variant: &Variant,
        sources: &SourceCache,
    ) -> Result<VariantKey> {
        let mut h = Sha256::new();
        let mut part = |bytes: &[u8]| {
            h.update(bytes);
            h.update([0]);
        };
        part(KEY_VERSION.as_bytes());
        for o in FIXED_COMPILE_OPTIONS {
            part(o.as_bytes());
        }
        part(spec_repr::experiment(exp).as_bytes());
        let verify = exp.verify_for(variant);
        part(spec_repr::verify(verify).as_bytes());
        part(spec_repr::variant(variant).as_bytes());
        for d in code_digests(exp, variant, sources)? {
            part(&d);
        }
        if let Reference::Variant(name) = &verify.reference
            && name != &variant.name
            && let Some(reference) = exp.variant(name)
        {
            part(b"reference");
            part(spec_repr::variant(reference).as_bytes());
            for d in code_digests(exp, reference, sources)? {
                part(&d);
            }
        }
        Ok(VariantKey {
            digest: h.finalize().into(),
        })
    }

    /// The key of the variant at these parameter values (every spec parameter, defaults filled).
    pub(crate) fn at(&self, params: &BTreeMap<String, ParamValue>) -> PointKey {
        let mut h = Sha256::new();
        h.update(self.digest);
        for (name, value) in params {
            h.update(name);
            h.update([0]);
            h.update(spec_repr::param(value));
            h.update([0]);
        }
        PointKey(hex16(&h.finalize()))
    }
}

/// The digests of a variant's kernel source and of the spec's `includes`.
fn code_digests(
    exp: &Experiment,
    variant: &Variant,
    sources: &SourceCache,
) -> Result<Vec<[u8; 32]>> {
    let mut out = Vec::new();
    if let Exec::Kernel { source, .. } = &variant.exec {
        out.push(sources.digest(source)?);
    }
    for inc in &exp.includes {
        out.push(sources.digest(inc)?);
    }
    Ok(out)
}

/// The cache key of a variant at some parameter values (see [`VariantKey`]).
pub fn point_key(
    exp: &Experiment,
    variant: &Variant,
    params: &BTreeMap<String, ParamValue>,
    sources: &SourceCache,
) -> Result<PointKey> {
    Ok(VariantKey::new(exp, variant, sources)?.at(params))
}

fn hex16(digest: &[u8]) -> String {
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "pinned_tests.rs"]
mod pinned_tests;
