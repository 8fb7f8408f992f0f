//! Element-wise references: `sin_sqrt`.

use super::*;

/// `out[i] = sin(sqrt(x[i]))`, computed in f64 (floats only).
pub fn sin_sqrt(x: &HostData) -> Result<HostData, ReferenceError> {
    Ok(match x {
        HostData::F32(v) => HostData::F32(
            v.par_iter()
                .map(|&a| (a as f64).sqrt().sin() as f32)
                .collect(),
        ),
        HostData::F64(v) => HostData::F64(v.par_iter().map(|&a| a.sqrt().sin()).collect()),
        other => {
            return Err(ReferenceError::Type {
                name: "sin_sqrt".to_string(),
                ty: other.elem_type(),
                detail: " (it needs f32 or f64)".to_string(),
            });
        }
    })
}
