//! Built-in CPU references (rayon-parallel; floats in `f64`, integers wrapping in their own type)
//! and the comparison of a kernel's output with them.

use crate::host_data::{ElemType, Element, HostData, each, map_same, of_type};
use crate::spec::builtins::REFERENCES as NAMES;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a reference (or CPU baseline) could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    #[error("unknown {kind} `{name}` (known: {})", known.join(", "))]
    Unknown {
        kind: &'static str,
        name: String,
        known: Vec<String>,
    },
    #[error("`{name}` takes {expected} input buffer(s), got {got}")]
    InputCount {
        name: String,
        expected: usize,
        got: usize,
    },
    #[error("`{name}` needs the dimension `{dim}` in `dims`")]
    MissingDim { name: String, dim: String },
    #[error("`{name}`: dimension `{dim}` = {value} is invalid: {reason}")]
    BadDim {
        name: String,
        dim: String,
        value: i64,
        reason: String,
    },
    #[error("`{name}`: input {input} has {got} elements, expected {expected}")]
    Length {
        name: String,
        input: usize,
        expected: String,
        got: usize,
    },
    #[error("`{name}` does not support element type {ty}{detail}")]
    Type {
        name: String,
        ty: ElemType,
        detail: String,
    },
    #[error("`{name}`: inputs have different element types ({a} and {b})")]
    MixedTypes {
        name: String,
        a: ElemType,
        b: ElemType,
    },
    #[error("`{name}`: index {index} (element {element}) is outside the input of {len} elements")]
    OutOfBounds {
        name: String,
        element: usize,
        index: i64,
        len: usize,
    },
}

/// Runs the reference `name` on `inputs` with the scalar `dims`, its result in `out`'s type;
/// narrow types (and f32 into an f64 output) are computed wider and rounded once into `out`.
pub fn run(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
    out: ElemType,
) -> Result<HostData, ReferenceError> {
    if matches!(name, "transpose" | "gather") {
        return run_typed(name, inputs, dims);
    }
    let wide = |t: ElemType| {
        computing_type(t).or((t == ElemType::F32 && out == ElemType::F64).then_some(ElemType::F64))
    };
    let result = if inputs.iter().any(|d| wide(d.elem_type()).is_some()) {
        let widened: Vec<HostData> = inputs
            .iter()
            .map(|d| wide(d.elem_type()).map_or_else(|| (*d).clone(), |w| d.cast(w)))
            .collect();
        run_typed(name, &widened.iter().collect::<Vec<_>>(), dims)?
    } else {
        run_typed(name, inputs, dims)?
    };
    Ok(if result.elem_type() == out {
        result
    } else {
        result.cast(out)
    })
}

/// [`run`] on inputs of the types the references compute in.
fn run_typed(
    name: &str,
    inputs: &[&HostData],
    dims: &BTreeMap<String, i64>,
) -> Result<HostData, ReferenceError> {
    let d = Dims { name, dims };
    let want = |n: usize| input_count(name, inputs.len(), n);
    match name {
        "matmul" => want(2).and_then(|()| matmul(inputs[0], inputs[1], d.usize("n")?)),
        "matmul_aat" => want(1).and_then(|()| matmul_aat(inputs[0], d.usize("n")?)),
        "transpose" => {
            want(1)?;
            transpose(inputs[0], d.usize("rows")?, d.usize("cols")?)
        }
        "gather" => {
            want(1)?;
            gather(inputs[0], d.usize("n")?, d.int("offset")?, d.int("stride")?)
        }
        "sum" => want(1).and_then(|()| sum(inputs[0])),
        "dot" => want(2).and_then(|()| dot(inputs[0], inputs[1])),
        "matvec" => {
            want(2)?;
            let (rows, cols, pitch) = d.matrix()?;
            matvec(inputs[0], inputs[1], rows, cols, pitch)
        }
        "row_sum" | "row_mean" | "row_max" | "row_min" | "row_sumsq" => {
            want(1)?;
            let (rows, cols, pitch) = d.matrix()?;
            let op = match name {
                "row_sum" => RowOp::Sum,
                "row_mean" => RowOp::Mean,
                "row_max" => RowOp::Max,
                "row_min" => RowOp::Min,
                _ => RowOp::SumSq,
            };
            row_reduce(inputs[0], rows, cols, pitch, op)
        }
        "col_mean" => {
            want(1)?;
            let (rows, cols, pitch) = d.matrix()?;
            col_mean(inputs[0], rows, cols, pitch)
        }
        "sin_sqrt" => want(1).and_then(|()| sin_sqrt(inputs[0])),
        _ => Err(ReferenceError::Unknown {
            kind: "reference",
            name: name.to_string(),
            known: NAMES.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// `Ok` when `name` (a reference or CPU baseline) got the `expected` number of input buffers.
pub(crate) fn input_count(name: &str, got: usize, expected: usize) -> Result<(), ReferenceError> {
    if got == expected {
        Ok(())
    } else {
        Err(ReferenceError::InputCount {
            name: name.to_string(),
            expected,
            got,
        })
    }
}

/// Named scalar dimensions with typed errors.
pub(crate) struct Dims<'a> {
    pub name: &'a str,
    pub dims: &'a BTreeMap<String, i64>,
}

impl Dims<'_> {
    pub(crate) fn int(&self, dim: &str) -> Result<i64, ReferenceError> {
        self.dims
            .get(dim)
            .copied()
            .ok_or_else(|| ReferenceError::MissingDim {
                name: self.name.to_string(),
                dim: dim.to_string(),
            })
    }
    /// `rows`, `cols` and `pitch` (the row stride in elements; `cols` when not given).
    pub(crate) fn matrix(&self) -> Result<(usize, usize, usize), ReferenceError> {
        let (rows, cols) = (self.usize("rows")?, self.usize("cols")?);
        let pitch = if self.dims.contains_key("pitch") {
            self.usize("pitch")?
        } else {
            cols
        };
        Ok((rows, cols, pitch))
    }

    pub(crate) fn usize(&self, dim: &str) -> Result<usize, ReferenceError> {
        let value = self.int(dim)?;
        usize::try_from(value).map_err(|_| ReferenceError::BadDim {
            name: self.name.to_string(),
            dim: dim.to_string(),
            value,
            reason: "must not be negative".to_string(),
        })
    }
}

/// The fixed chunk of parallel sums and comparisons, so results do not depend on the thread count.
pub(super) const SUM_CHUNK: usize = 1 << 14;

pub(super) fn check_len(
    name: &str,
    input: usize,
    data: &HostData,
    expected: usize,
    what: &str,
) -> Result<(), ReferenceError> {
    if data.len() == expected {
        Ok(())
    } else {
        Err(ReferenceError::Length {
            name: name.to_string(),
            input,
            expected: format!("{expected} ({what})"),
            got: data.len(),
        })
    }
}

pub(super) fn product(name: &str, dims: &[(&str, usize)]) -> Result<usize, ReferenceError> {
    dims.iter().try_fold(1usize, |acc, &(dim, v)| {
        acc.checked_mul(v).ok_or_else(|| ReferenceError::BadDim {
            name: name.to_string(),
            dim: dim.to_string(),
            value: v as i64,
            reason: "the buffer size overflows".to_string(),
        })
    })
}

pub(super) fn to_f64_vec(data: &HostData) -> Vec<f64> {
    each!(data, v => v.par_iter().map(|&x| x.to_f64()).collect())
}

pub(super) fn from_f64_vec(ty: ElemType, v: Vec<f64>) -> HostData {
    of_type!(ty, T => v.par_iter().map(|&x| T::from_f64(x)).collect())
}

/// The type a narrow type is computed in: wrapping i32/u32 agrees once narrowed back; f16/bf16 in f64.
pub(super) fn computing_type(ty: ElemType) -> Option<ElemType> {
    match ty {
        ElemType::I8 | ElemType::I16 => Some(ElemType::I32),
        ElemType::U8 | ElemType::U16 => Some(ElemType::U32),
        ElemType::F16 | ElemType::BF16 => Some(ElemType::F64),
        _ => None,
    }
}

/// A reference input type the arithmetic references do not compute in (64-bit integers).
pub(super) fn unsupported(name: &str, ty: ElemType) -> ReferenceError {
    ReferenceError::Type {
        name: name.to_string(),
        ty,
        detail: " (arithmetic references compute in 8- to 32-bit integers and floats; for 64-bit \
                 integers write a `formula`)"
            .to_string(),
    }
}

/// A pair of inputs no arithmetic reference takes: of one unsupported type, or of two types.
pub(super) fn type_pair(name: &str, a: &HostData, b: &HostData) -> ReferenceError {
    if a.elem_type() == b.elem_type() {
        return unsupported(name, a.elem_type());
    }
    ReferenceError::MixedTypes {
        name: name.to_string(),
        a: a.elem_type(),
        b: b.elem_type(),
    }
}

mod compare;
mod elementwise;
mod gemm;
mod movement;
mod reduce;

pub use compare::{Comparison, Worst, compare, compare_prefix_within, compare_within, scale};
pub use elementwise::sin_sqrt;
pub use gemm::{matmul, matmul_aat};
pub use movement::{gather, transpose};
pub use reduce::{RowOp, col_mean, dot, matvec, row_reduce, sum};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod types_tests;
