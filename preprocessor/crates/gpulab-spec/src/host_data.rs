//! Typed host-side arrays (`HostData`) and their element types (`ElemType`).

pub mod element;
pub mod init;

use crate::expr::Num;
pub use element::Element;
pub use half::{bf16, f16};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The element type of a buffer (`[[buffer]] type`) or of a scalar kernel argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    BF16,
    F32,
    F64,
}

/// A type name that is not one of [`ElemType::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown element type `{0}` (expected one of: {names})", names = ElemType::names().join(", "))]
pub struct UnknownElemType(pub String);

impl ElemType {
    /// Every element type, in a fixed order.
    pub const ALL: [ElemType; 12] = [
        ElemType::I8,
        ElemType::U8,
        ElemType::I16,
        ElemType::U16,
        ElemType::I32,
        ElemType::U32,
        ElemType::I64,
        ElemType::U64,
        ElemType::F16,
        ElemType::BF16,
        ElemType::F32,
        ElemType::F64,
    ];

    /// Every type's name, in [`ElemType::ALL`]'s order (for messages and did-you-mean).
    pub fn names() -> Vec<&'static str> {
        ElemType::ALL.iter().map(|t| t.name()).collect()
    }

    /// Parses a type name as a spec writes it (`"u8"`, `"bf16"`, …).
    pub fn parse(name: &str) -> Result<Self, UnknownElemType> {
        let name = name.trim();
        ElemType::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| UnknownElemType(name.to_string()))
    }

    /// The name used in specs (`"f32"`).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::I8 => "i8",
            ElemType::U8 => "u8",
            ElemType::I16 => "i16",
            ElemType::U16 => "u16",
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
            ElemType::I64 => "i64",
            ElemType::U64 => "u64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        }
    }

    /// The CUDA C type a kernel declares for it (`unsigned char`, `__half`, …).
    pub fn c_name(self) -> &'static str {
        match self {
            ElemType::I8 => "signed char",
            ElemType::U8 => "unsigned char",
            ElemType::I16 => "short",
            ElemType::U16 => "unsigned short",
            ElemType::I32 => "int",
            ElemType::U32 => "unsigned int",
            ElemType::I64 => "long long",
            ElemType::U64 => "unsigned long long",
            ElemType::F16 => "__half",
            ElemType::BF16 => "__nv_bfloat16",
            ElemType::F32 => "float",
            ElemType::F64 => "double",
        }
    }

    /// Size of one element in bytes.
    pub fn size_of(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::I16 | ElemType::U16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 => 8,
        }
    }

    /// Whether this is a floating-point type (compared with a tolerance).
    pub fn is_float(self) -> bool {
        self.unit_roundoff().is_some()
    }

    /// The unit roundoff `u` of a float type (half the distance from 1 to the next value:
    /// 2⁻¹¹ for f16, 2⁻⁸ for bf16, 2⁻²⁴ for f32, 2⁻⁵³ for f64); `None` for integers.
    pub fn unit_roundoff(self) -> Option<f64> {
        let mantissa_bits = match self {
            ElemType::F16 => 11,
            ElemType::BF16 => 8,
            ElemType::F32 => 24,
            ElemType::F64 => 53,
            _ => return None,
        };
        Some(0.5f64.powi(mantissa_bits))
    }

    /// The verification tolerance of an output of this type when the spec gives none: 0 (exact) for
    /// integers, 1e-5 for f32 and f64 (the long-standing default), and for f16/bf16 eight unit
    /// roundoffs (an element-wise result rounded a few times at the type's precision): 2⁻⁸ ≈ 3.9e-3
    /// for f16, 2⁻⁵ ≈ 0.031 for bf16. Relative to `max(1, max|ref|)`, like every float comparison.
    pub fn default_tolerance(self) -> f64 {
        match self {
            ElemType::F32 | ElemType::F64 => 1e-5,
            ty => ty.unit_roundoff().map_or(0.0, |u| 8.0 * u),
        }
    }

    /// The smallest and largest value of an integer type, as `i128`; `None` for floats.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            ElemType::I8 => (i8::MIN.into(), i8::MAX.into()),
            ElemType::U8 => (0, u8::MAX.into()),
            ElemType::I16 => (i16::MIN.into(), i16::MAX.into()),
            ElemType::U16 => (0, u16::MAX.into()),
            ElemType::I32 => (i32::MIN.into(), i32::MAX.into()),
            ElemType::U32 => (0, u32::MAX.into()),
            ElemType::I64 => (i64::MIN.into(), i64::MAX.into()),
            ElemType::U64 => (0, u64::MAX.into()),
            _ => return None,
        })
    }

    /// The largest finite value of a float type; `None` for integers.
    pub(crate) fn float_max(self) -> Option<f64> {
        Some(match self {
            ElemType::F16 => half::f16::MAX.to_f64(),
            ElemType::BF16 => half::bf16::MAX.to_f64(),
            ElemType::F32 => f64::from(f32::MAX),
            ElemType::F64 => f64::MAX,
            _ => return None,
        })
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

/// A host array of one element type.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// `each!(data, v => body)`: `body` with `v` bound to the typed vector, whatever the element type.
#[macro_export]
macro_rules! each {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::host_data::HostData::I8($v) => $body,
            $crate::host_data::HostData::U8($v) => $body,
            $crate::host_data::HostData::I16($v) => $body,
            $crate::host_data::HostData::U16($v) => $body,
            $crate::host_data::HostData::I32($v) => $body,
            $crate::host_data::HostData::U32($v) => $body,
            $crate::host_data::HostData::I64($v) => $body,
            $crate::host_data::HostData::U64($v) => $body,
            $crate::host_data::HostData::F16($v) => $body,
            $crate::host_data::HostData::BF16($v) => $body,
            $crate::host_data::HostData::F32($v) => $body,
            $crate::host_data::HostData::F64($v) => $body,
        }
    };
}
pub use crate::each;

/// `map_same!(data, v => body)`: a new `HostData` of the same element type from `body`, a `Vec`.
#[macro_export]
macro_rules! map_same {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::host_data::HostData::I8($v) => $crate::host_data::HostData::I8($body),
            $crate::host_data::HostData::U8($v) => $crate::host_data::HostData::U8($body),
            $crate::host_data::HostData::I16($v) => $crate::host_data::HostData::I16($body),
            $crate::host_data::HostData::U16($v) => $crate::host_data::HostData::U16($body),
            $crate::host_data::HostData::I32($v) => $crate::host_data::HostData::I32($body),
            $crate::host_data::HostData::U32($v) => $crate::host_data::HostData::U32($body),
            $crate::host_data::HostData::I64($v) => $crate::host_data::HostData::I64($body),
            $crate::host_data::HostData::U64($v) => $crate::host_data::HostData::U64($body),
            $crate::host_data::HostData::F16($v) => $crate::host_data::HostData::F16($body),
            $crate::host_data::HostData::BF16($v) => $crate::host_data::HostData::BF16($body),
            $crate::host_data::HostData::F32($v) => $crate::host_data::HostData::F32($body),
            $crate::host_data::HostData::F64($v) => $crate::host_data::HostData::F64($body),
        }
    };
}
pub use crate::map_same;

/// `of_type!(ty, T => body)`: `body` producing a `Vec<T>` for the Rust element type `T` of `ty`,
/// wrapped into the matching `HostData`.
#[macro_export]
macro_rules! of_type {
    ($ty:expr, $t:ident => $body:expr) => {
        match $ty {
            $crate::host_data::ElemType::I8 => $crate::host_data::HostData::I8({
                type $t = i8;
                $body
            }),
            $crate::host_data::ElemType::U8 => $crate::host_data::HostData::U8({
                type $t = u8;
                $body
            }),
            $crate::host_data::ElemType::I16 => $crate::host_data::HostData::I16({
                type $t = i16;
                $body
            }),
            $crate::host_data::ElemType::U16 => $crate::host_data::HostData::U16({
                type $t = u16;
                $body
            }),
            $crate::host_data::ElemType::I32 => $crate::host_data::HostData::I32({
                type $t = i32;
                $body
            }),
            $crate::host_data::ElemType::U32 => $crate::host_data::HostData::U32({
                type $t = u32;
                $body
            }),
            $crate::host_data::ElemType::I64 => $crate::host_data::HostData::I64({
                type $t = i64;
                $body
            }),
            $crate::host_data::ElemType::U64 => $crate::host_data::HostData::U64({
                type $t = u64;
                $body
            }),
            $crate::host_data::ElemType::F16 => $crate::host_data::HostData::F16({
                type $t = ::half::f16;
                $body
            }),
            $crate::host_data::ElemType::BF16 => $crate::host_data::HostData::BF16({
                type $t = ::half::bf16;
                $body
            }),
            $crate::host_data::ElemType::F32 => $crate::host_data::HostData::F32({
                type $t = f32;
                $body
            }),
            $crate::host_data::ElemType::F64 => $crate::host_data::HostData::F64({
                type $t = f64;
                $body
            }),
        }
    };
}
pub use crate::of_type;

impl HostData {
    /// `len` zero elements of type `ty`.
    pub fn zeros(ty: ElemType, len: usize) -> Self {
        of_type!(ty, T => vec![T::default(); len])
    }

    /// `values` converted to `ty` by the element rules ([`Element::from_num`]).
    pub fn from_nums(ty: ElemType, values: &[Num]) -> Self {
        of_type!(ty, T => values.iter().map(|&n| T::from_num(n)).collect())
    }

    /// The element type.
    pub fn elem_type(&self) -> ElemType {
        match self {
            HostData::I8(_) => ElemType::I8,
            HostData::U8(_) => ElemType::U8,
            HostData::I16(_) => ElemType::I16,
            HostData::U16(_) => ElemType::U16,
            HostData::I32(_) => ElemType::I32,
            HostData::U32(_) => ElemType::U32,
            HostData::I64(_) => ElemType::I64,
            HostData::U64(_) => ElemType::U64,
            HostData::F16(_) => ElemType::F16,
            HostData::BF16(_) => ElemType::BF16,
            HostData::F32(_) => ElemType::F32,
            HostData::F64(_) => ElemType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        each!(self, v => v.len())
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.len() * self.elem_type().size_of()
    }

    /// Element `i` widened to `f64` (exact except 64-bit integers beyond 2⁵³).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        each!(self, v => v.get(i).map(|&x| x.to_f64()))
    }

    /// Element `i` as a formula reads it: an exact integer for integer types, else a float.
    pub fn get_num(&self, i: usize) -> Option<Num> {
        each!(self, v => v.get(i).map(|&x| match x.to_i128() {
            // u64 values above i64::MAX are read as floats (the expression language's integers are i64).
            Some(n) => i64::try_from(n).map_or(Num::Float(x.to_f64()), Num::Int),
            None => Num::Float(x.to_f64()),
        }))
    }

    /// Every element widened to `f64`, in order.
    pub fn as_f64_iter(&self) -> Box<dyn Iterator<Item = f64> + '_> {
        each!(self, v => Box::new(v.iter().map(|&x| x.to_f64())))
    }

    /// Converts every element to `ty` by the element rules (integers wrap, floats round to nearest).
    /// Integer to integer conversions are exact modulo 2^bits, never through `f64`.
    pub fn cast(&self, ty: ElemType) -> HostData {
        if self.elem_type() == ty {
            return self.clone();
        }
        let ints: Option<Vec<i128>> = each!(self, v => v.iter().map(|&x| x.to_i128()).collect());
        match ints {
            Some(ints) => of_type!(ty, T => ints.iter().map(|&n| T::from_i64(n as i64)).collect()),
            None => of_type!(ty, T => self.as_f64_iter().map(T::from_f64).collect()),
        }
    }

    /// The raw bytes of the array (native endianness), e.g. to fill a `__constant__` symbol.
    pub fn to_ne_bytes(&self) -> Vec<u8> {
        match self {
            HostData::I8(v) => v.iter().map(|&x| x as u8).collect(),
            HostData::U8(v) => v.clone(),
            HostData::I16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::U16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::I32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::U32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::I64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::U64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::F16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::BF16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::F32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            HostData::F64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        }
    }

    #[cfg(test)]
    /// The first `n` elements (or all of them), for messages.
    pub(crate) fn preview(&self, n: usize) -> String {
        let items: Vec<String> = self.as_f64_iter().take(n).map(|x| format!("{x}")).collect();
        let more = if self.len() > n { ", …" } else { "" };
        format!("[{}{more}]", items.join(", "))
    }

    /// The first `n` elements (all of them when there are fewer).
    pub fn prefix(&self, n: usize) -> HostData {
        map_same!(self, v => v[..n.min(v.len())].to_vec())
    }
}

macro_rules! from_vec {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<Vec<$t>> for HostData {
            fn from(v: Vec<$t>) -> Self {
                HostData::$variant(v)
            }
        }
    )*};
}
from_vec!(i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64,
    u64 => U64, f16 => F16, bf16 => BF16, f32 => F32, f64 => F64);

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
        assert_eq!(ElemType::parse("bf16"), Ok(ElemType::BF16));
        assert_eq!(ElemType::U8.size_of(), 1);
        assert_eq!(ElemType::F16.size_of(), 2);
        assert_eq!(ElemType::I64.size_of(), 8);
        assert!(ElemType::BF16.is_float() && !ElemType::U64.is_float());
        assert_eq!(ElemType::F16.unit_roundoff(), Some(2f64.powi(-11)));
        assert_eq!(ElemType::I8.int_range(), Some((-128, 127)));
        assert_eq!(ElemType::U8.default_tolerance(), 0.0);
        assert_eq!(ElemType::F32.default_tolerance(), 1e-5);
        assert_eq!(ElemType::F16.default_tolerance(), 2f64.powi(-8));
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

    #[test]
    fn every_type_round_trips_its_bytes_and_casts_by_the_element_rules() {
        for ty in ElemType::ALL {
            let d = HostData::zeros(ty, 3);
            assert_eq!(d.elem_type(), ty);
            assert_eq!(d.to_ne_bytes().len(), 3 * ty.size_of());
            assert_eq!(d.size_bytes(), 3 * ty.size_of());
        }
        let d: HostData = vec![-1i64, 256, 300].into();
        // Integer to integer: exact modulo 2^bits.
        assert_eq!(d.cast(ElemType::U8), HostData::U8(vec![255, 0, 44]));
        assert_eq!(d.cast(ElemType::I16), HostData::I16(vec![-1, 256, 300]));
        let big: HostData = vec![u64::MAX].into();
        assert_eq!(big.cast(ElemType::I64), HostData::I64(vec![-1]));
        // Float to integer: truncated, then wrapped.
        let f: HostData = vec![2.9f64, -0.5, 257.0].into();
        assert_eq!(f.cast(ElemType::U8), HostData::U8(vec![2, 0, 1]));
        assert_eq!(f.cast(ElemType::F16).get_f64(0), Some(2.900390625));
        assert_eq!(
            HostData::from_nums(ElemType::U64, &[Num::Int(-1), Num::Float(3.7)]),
            HostData::U64(vec![u64::MAX, 3])
        );
        assert_eq!(
            HostData::U64(vec![u64::MAX]).get_num(0),
            Some(Num::Float(u64::MAX as f64))
        );
        assert_eq!(HostData::I8(vec![-5]).get_num(0), Some(Num::Int(-5)));
    }
}
