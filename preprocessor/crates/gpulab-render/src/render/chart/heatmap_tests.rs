//! Tests of `heatmap`.

use super::*;

#[test]
fn scale_goodness() {
    let times = Scale::new(&[1.0, 3.0], Some(Better::Lower));
    assert_eq!(times.goodness(1.0), 1.0);
    assert_eq!(times.goodness(3.0), 0.0);
    assert_eq!(times.best(), Some(1.0));
    let bw = Scale::new(&[1.0, 1000.0], Some(Better::Higher));
    assert!(bw.log);
    assert!((bw.goodness(10.0) - 1.0 / 3.0).abs() < 1e-9);
    let flat = Scale::new(&[2.0], Some(Better::Higher));
    assert_eq!(flat.goodness(2.0), 1.0);
    let counts = Scale::new(&[1.0, 3.0], None);
    assert_eq!((counts.goodness(3.0), counts.best()), (1.0, None));
}
