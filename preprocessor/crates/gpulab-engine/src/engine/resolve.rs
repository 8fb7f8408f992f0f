//! Resolving a variant at one point into NVRTC options, launch dimensions and arguments (pure).

use crate::expr::{Expr, Num};
use crate::spec::{ArgSpec, DefineValue, Exec, Experiment, Launch, ScalarType, Variant};
use std::collections::HashMap;

/// A scalar kernel argument with its concrete value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    I8(i8),
    U8(u8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F16(half::f16),
    BF16(half::bf16),
    F32(f32),
    F64(f64),
}

impl Scalar {
    /// `v` as an argument of type `ty`: integers must be in range (never wrapped), floats round.
    pub fn of(ty: ScalarType, v: Num) -> Result<Scalar, String> {
        if let Some((lo, hi)) = ty.int_range() {
            let i = v.as_i64().ok_or_else(|| format!("{v} is not an integer"))?;
            if i128::from(i) < lo || i128::from(i) > hi {
                return Err(format!("{i} overflows {ty}"));
            }
            return Ok(match ty {
                ScalarType::I8 => Scalar::I8(i as i8),
                ScalarType::U8 => Scalar::U8(i as u8),
                ScalarType::I16 => Scalar::I16(i as i16),
                ScalarType::U16 => Scalar::U16(i as u16),
                ScalarType::I32 => Scalar::I32(i as i32),
                ScalarType::U32 => Scalar::U32(i as u32),
                ScalarType::U64 => Scalar::U64(i as u64),
                _ => Scalar::I64(i),
            });
        }
        let x = v.as_f64();
        Ok(match ty {
            ScalarType::F16 => Scalar::F16(half::f16::from_f64(x)),
            ScalarType::BF16 => Scalar::BF16(half::bf16::from_f64(x)),
            ScalarType::F32 => Scalar::F32(x as f32),
            _ => Scalar::F64(x),
        })
    }
}

/// A kernel argument after resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Buffer(String),
    PassIn,
    PassOut,
    Scalar(Scalar),
}

/// Errors evaluating a variant's expressions at a point.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("variant `{variant}`: {message}")]
pub struct ResolveError {
    pub variant: String,
    pub message: String,
}

/// The NVRTC options (`-D NAME=value`) of a kernel variant at a point.
pub fn defines(
    variant: &Variant,
    vars: &HashMap<String, Num>,
) -> Result<Vec<String>, ResolveError> {
    let err = |m: String| ResolveError {
        variant: variant.name.clone(),
        message: m,
    };
    let mut out = Vec::new();
    for (name, value) in &variant.defines {
        let text = match value {
            DefineValue::Literal(s) => s.clone(),
            DefineValue::Expr(e) => e
                .eval(vars)
                .map_err(|x| err(format!("define {name}: {x}")))?
                .to_string(),
        };
        out.push(format!("-D{name}={text}"));
    }
    out.extend(variant.options.iter().cloned());
    Ok(out)
}

fn eval_u32(
    e: &Expr,
    vars: &HashMap<String, Num>,
    what: &str,
    variant: &str,
) -> Result<u32, ResolveError> {
    let err = |m: String| ResolveError {
        variant: variant.to_string(),
        message: m,
    };
    let v = e
        .eval(vars)
        .map_err(|x| err(format!("{what} `{}`: {x}", e.source())))?;
    let i = v
        .as_i64()
        .ok_or_else(|| err(format!("{what} `{}` = {v} is not an integer", e.source())))?;
    u32::try_from(i).map_err(|_| err(format!("{what} `{}` = {i} is out of range", e.source())))
}

/// Grid, block (missing dimensions 1) and dynamic shared memory of one launch at a point.
pub fn dims(
    variant: &str,
    launch: &Launch,
    vars: &HashMap<String, Num>,
) -> Result<([u32; 3], [u32; 3], u32), ResolveError> {
    let mut grid = [1u32; 3];
    let mut block = [1u32; 3];
    for (i, e) in launch.grid.iter().enumerate().take(3) {
        grid[i] = eval_u32(e, vars, "grid", variant)?;
    }
    for (i, e) in launch.block.iter().enumerate().take(3) {
        block[i] = eval_u32(e, vars, "block", variant)?;
    }
    let shared = match &launch.shared {
        Some(e) => eval_u32(e, vars, "shared", variant)?,
        None => 0,
    };
    Ok((grid, block, shared))
}

/// The arguments of one of `variant`'s launches at a point.
pub fn args(
    variant: &str,
    launch: &Launch,
    vars: &HashMap<String, Num>,
) -> Result<Vec<Arg>, ResolveError> {
    let err = |m: String| ResolveError {
        variant: variant.to_string(),
        message: m,
    };
    launch
        .args
        .iter()
        .map(|a| {
            Ok(match a {
                ArgSpec::Buffer(b) => Arg::Buffer(b.clone()),
                ArgSpec::PassIn => Arg::PassIn,
                ArgSpec::PassOut => Arg::PassOut,
                ArgSpec::Scalar(ty, e) => {
                    let v = e
                        .eval(vars)
                        .map_err(|x| err(format!("argument `{}`: {x}", e.source())))?;
                    Arg::Scalar(
                        Scalar::of(*ty, v)
                            .map_err(|m| err(format!("argument `{}` = {m}", e.source())))?,
                    )
                }
            })
        })
        .collect()
}

/// Buffer lengths at a point, in the spec's order.
pub fn buffer_lens(
    exp: &Experiment,
    vars: &HashMap<String, Num>,
) -> Result<Vec<(String, usize)>, ResolveError> {
    exp.buffers
        .iter()
        .map(|b| {
            let err = |m: String| ResolveError {
                variant: format!("buffer {}", b.name),
                message: m,
            };
            let v = b.len.eval(vars).map_err(|x| err(x.to_string()))?;
            let n = v
                .as_i64()
                .filter(|n| *n >= 0)
                .ok_or_else(|| err(format!("length {v} is not a non-negative integer")))?;
            Ok((b.name.clone(), n as usize))
        })
        .collect()
}

/// The kernel compilation (source path, first kernel, options) a kernel variant needs at a
/// point: one module holds every kernel of its launches, the first naming it.
pub fn kernel_builds(
    variant: &Variant,
    vars: &HashMap<String, Num>,
) -> Result<Option<(std::path::PathBuf, String, Vec<String>)>, ResolveError> {
    let first = variant.launches.first().map(|l| l.kernel.clone());
    match &variant.exec {
        Exec::Kernel { source } => Ok(Some((
            source.clone(),
            first.unwrap_or_default(),
            defines(variant, vars)?,
        ))),
        _ => Ok(None),
    }
}
