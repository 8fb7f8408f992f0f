//! Tests of `host_data`.

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
