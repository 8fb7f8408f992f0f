//! Typed host-side arrays (`HostData`) and their element types (`ElemType`).

pub mod init;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The element type of a buffer: the four types a spec's `[[buffer]] type` may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    I32,
    U32,
    F32,
    F64,
}

/// A type name that is not one of `i32`, `u32`, `f32`, `f64`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown element type `{0}` (expected one of: i32, u32, f32, f64)")]
pub struct UnknownElemType(pub String);

impl ElemType {
    /// Every element type, in a fixed order.
    pub const ALL: [ElemType; 4] = [ElemType::I32, ElemType::U32, ElemType::F32, ElemType::F64];

    /// Parses `"i32" | "u32" | "f32" | "f64"`.
    pub fn parse(name: &str) -> Result<Self, UnknownElemType> {
        match name.trim() {
            "i32" => Ok(ElemType::I32),
            "u32" => Ok(ElemType::U32),
            "f32" => Ok(ElemType::F32),
            "f64" => Ok(ElemType::F64),
            other => Err(UnknownElemType(other.to_string())),
        }
    }

    /// The name used in specs (`"f32"`).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        }
    }

    /// Size of one element in bytes.
    pub fn size_of(self) -> usize {
        match self {
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::F64 => 8,
        }
    }

    /// Whether this is a floating-point type (compared with a tolerance).
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F32 | ElemType::F64)
    }
}

impl FromStr for ElemType {
    type Err = UnknownElemType;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ElemType::parse(s)
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A host array of one of the four element types.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    I32(Vec<i32>),
    U32(Vec<u32>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl HostData {
    /// `len` zero elements of type `ty`.
    pub fn zeros(ty: ElemType, len: usize) -> Self {
        match ty {
            ElemType::I32 => HostData::I32(vec![0; len]),
            ElemType::U32 => HostData::U32(vec![0; len]),
            ElemType::F32 => HostData::F32(vec![0.0; len]),
            ElemType::F64 => HostData::F64(vec![0.0; len]),
        }
    }

    /// The element type.
    pub fn elem_type(&self) -> ElemType {
        match self {
            HostData::I32(_) => ElemType::I32,
            HostData::U32(_) => ElemType::U32,
            HostData::F32(_) => ElemType::F32,
            HostData::F64(_) => ElemType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            HostData::I32(v) => v.len(),
            HostData::U32(v) => v.len(),
            HostData::F32(v) => v.len(),
            HostData::F64(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.len() * self.elem_type().size_of()
    }

    /// Element `i` widened to `f64` (exact for every element type).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        match self {
            HostData::I32(v) => v.get(i).map(|&x| x as f64),
            HostData::U32(v) => v.get(i).map(|&x| x as f64),
            HostData::F32(v) => v.get(i).map(|&x| x as f64),
            HostData::F64(v) => v.get(i).copied(),
        }
    }

    /// Every element widened to `f64`, in order.
    pub fn as_f64_iter(&self) -> Box<dyn Iterator<Item = f64> + '_> {
        match self {
            HostData::I32(v) => Box::new(v.iter().map(|&x| x as f64)),
            HostData::U32(v) => Box::new(v.iter().map(|&x| x as f64)),
            HostData::F32(v) => Box::new(v.iter().map(|&x| x as f64)),
            HostData::F64(v) => Box::new(v.iter().copied()),
        }
    }

    /// Converts every element to `ty` (floats → ints truncate and saturate, like `as`).
    pub fn cast(&self, ty: ElemType) -> HostData {
        if self.elem_type() == ty {
            return self.clone();
        }
        match ty {
            ElemType::F64 => HostData::F64(self.as_f64_iter().collect()),
            ElemType::F32 => HostData::F32(self.as_f64_iter().map(|x| x as f32).collect()),
            ElemType::I32 => HostData::I32(self.as_f64_iter().map(|x| x as i32).collect()),
            ElemType::U32 => HostData::U32(self.as_f64_iter().map(|x| x as u32).collect()),
        }
    }

    /// The raw bytes of the array (native endianness), e.g. to fill a `__constant__` symbol.
    pub fn to_ne_bytes(&self) -> Vec<u8> {
        match self {
            HostData::I32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::U32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::F32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::F64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        }
    }

    /// The first `n` elements (or all of them), for messages.
    pub fn preview(&self, n: usize) -> String {
        let items: Vec<String> = self.as_f64_iter().take(n).map(|x| format!("{x}")).collect();
        let more = if self.len() > n { ", …" } else { "" };
        format!("[{}{more}]", items.join(", "))
    }
}

impl From<Vec<i32>> for HostData {
    fn from(v: Vec<i32>) -> Self {
        HostData::I32(v)
    }
}
impl From<Vec<u32>> for HostData {
    fn from(v: Vec<u32>) -> Self {
        HostData::U32(v)
    }
}
impl From<Vec<f32>> for HostData {
    fn from(v: Vec<f32>) -> Self {
        HostData::F32(v)
    }
}
impl From<Vec<f64>> for HostData {
    fn from(v: Vec<f64>) -> Self {
        HostData::F64(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_names_types() {
        for ty in ElemType::ALL {
            assert_eq!(ElemType::parse(ty.name()), Ok(ty));
            assert_eq!(ty.to_string(), ty.name());
        }
        assert_eq!(" f64 ".parse::<ElemType>(), Ok(ElemType::F64));
        let err = ElemType::parse("float").unwrap_err();
        assert!(err.to_string().contains("`float`"));
        assert_eq!(ElemType::F64.size_of(), 8);
        assert_eq!(ElemType::U32.size_of(), 4);
        assert!(ElemType::F32.is_float() && !ElemType::I32.is_float());
    }

    #[test]
    fn serde_uses_lowercase_names() {
        let json = serde_json::to_string(&ElemType::U32).unwrap();
        assert_eq!(json, "\"u32\"");
        let back: ElemType = serde_json::from_str("\"f32\"").unwrap();
        assert_eq!(back, ElemType::F32);
    }

    #[test]
    fn host_data_basics() {
        let d = HostData::zeros(ElemType::F32, 5);
        assert_eq!(d.len(), 5);
        assert_eq!(d.elem_type(), ElemType::F32);
        assert_eq!(d.size_bytes(), 20);
        let d: HostData = vec![1i32, -2, 3].into();
        assert_eq!(d.as_f64_iter().collect::<Vec<_>>(), vec![1.0, -2.0, 3.0]);
        assert_eq!(d.get_f64(1), Some(-2.0));
        assert_eq!(d.get_f64(3), None);
        assert_eq!(d.cast(ElemType::F64), HostData::F64(vec![1.0, -2.0, 3.0]));
        assert_eq!(d.to_ne_bytes().len(), 12);
        assert_eq!(d.preview(2), "[1, -2, …]");
        assert!(HostData::U32(vec![]).is_empty());
    }
}
