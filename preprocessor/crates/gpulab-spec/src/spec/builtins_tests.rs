//! Tests of `builtins`.

use super::*;

#[test]
fn every_reference_declares_its_dims() {
    for name in REFERENCES {
        assert!(dims_of(name).is_some(), "{name} has no dims_of entry");
    }
}
