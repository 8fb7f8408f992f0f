//! Typed host-side arrays (`HostData`) and their element types (`ElemType`).

pub mod element;
pub mod init;

use crate::expr::Num;
pub use element::Element;
pub use half::{bf16, f16};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Calls the macro `[$cb]` with the table of element types (variant, Rust type, spec name, CUDA C
/// name) and `$args`, so that each fact about a type is stated once.
#[doc(hidden)]
#[macro_export]
macro_rules! __elem_types {
    ([$($cb:tt)*] $($args:tt)*) => {
        $($cb)*! { [
            (I8, i8, "i8", "signed char"),
            (U8, u8, "u8", "unsigned char"),
            (I16, i16, "i16", "short"),
            (U16, u16, "u16", "unsigned short"),
            (I32, i32, "i32", "int"),
            (U32, u32, "u32", "unsigned int"),
            (I64, i64, "i64", "long long"),
            (U64, u64, "u64", "unsigned long long"),
            (F16, $crate::host_data::f16, "f16", "__half"),
            (BF16, $crate::host_data::bf16, "bf16", "__nv_bfloat16"),
            (F32, f32, "f32", "float"),
            (F64, f64, "f64", "double")
        ] $($args)* }
    };
}

/// `ElemType`, `HostData` and what each says of its types, from `__elem_types`'s table.
macro_rules! define_types {
    ([$(($V:ident, $T:ty, $name:literal, $c:literal)),*]) => {
        /// The element type of a buffer (`[[buffer]] type`) or of a scalar kernel argument.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum ElemType {
            $($V,)*
        }

        /// A host array of one element type.
        #[derive(Debug, Clone, PartialEq)]
        pub enum HostData {
            $($V(Vec<$T>),)*
        }

        impl ElemType {
            /// Every element type, in a fixed order.
            pub const ALL: [ElemType; 12] = [$(ElemType::$V),*];

            /// The name used in specs (`"f32"`).
            pub fn name(self) -> &'static str {
                match self {
                    $(ElemType::$V => $name,)*
                }
            }

            /// The CUDA C type a kernel declares for it (`unsigned char`, `__half`, …).
            pub fn c_name(self) -> &'static str {
                match self {
                    $(ElemType::$V => $c,)*
                }
            }

            /// Size of one element in bytes.
            pub fn size_of(self) -> usize {
                match self {
                    $(ElemType::$V => std::mem::size_of::<$T>(),)*
                }
            }
        }

        impl HostData {
            /// The element type.
            pub fn elem_type(&self) -> ElemType {
                match self {
                    $(HostData::$V(_) => ElemType::$V,)*
                }
            }
        }

        $(impl From<Vec<$T>> for HostData {
            fn from(v: Vec<$T>) -> Self {
                HostData::$V(v)
            }
        })*
    };
}
__elem_types!([define_types]);

/// A type name that is not one of [`ElemType::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown element type `{0}` (expected one of: {names})", names = ElemType::names().join(", "))]
pub struct UnknownElemType(pub String);

impl ElemType {
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

/// `each!(data, v => body)`: `body` with `v` bound to the typed vector, whatever the element type.
#[macro_export]
macro_rules! each {
    ([$(($V:ident, $T:ty, $n:literal, $c:literal)),*] $data:expr, $v:ident => $body:expr) => {
        match $data {
            $($crate::host_data::HostData::$V($v) => $body,)*
        }
    };
    ($data:expr, $v:ident => $body:expr) => {
        $crate::__elem_types!([$crate::each] $data, $v => $body)
    };
}
pub use crate::each;

/// `map_same!(data, v => body)`: a new `HostData` of the same element type from `body`, a `Vec`.
#[macro_export]
macro_rules! map_same {
    ([$(($V:ident, $T:ty, $n:literal, $c:literal)),*] $data:expr, $v:ident => $body:expr) => {
        match $data {
            $($crate::host_data::HostData::$V($v) => $crate::host_data::HostData::$V($body),)*
        }
    };
    ($data:expr, $v:ident => $body:expr) => {
        $crate::__elem_types!([$crate::map_same] $data, $v => $body)
    };
}
pub use crate::map_same;

/// `of_type!(ty, T => body)`: `body` producing a `Vec<T>` for the Rust element type `T` of `ty`,
/// wrapped into the matching `HostData`.
#[macro_export]
macro_rules! of_type {
    ([$(($V:ident, $T:ty, $n:literal, $c:literal)),*] $ty:expr, $t:ident => $body:expr) => {
        match $ty {
            $($crate::host_data::ElemType::$V => $crate::host_data::HostData::$V({
                type $t = $T;
                $body
            }),)*
        }
    };
    ($ty:expr, $t:ident => $body:expr) => {
        $crate::__elem_types!([$crate::of_type] $ty, $t => $body)
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
        each!(self, v => v.iter().flat_map(|x| x.to_ne_bytes()).collect())
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

#[cfg(test)]
#[path = "host_data_tests.rs"]
mod tests;
