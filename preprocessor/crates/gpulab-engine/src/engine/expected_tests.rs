//! `formula` references written in TOML alone (aggregates, neighbours, recurrences), each checked
//! against the same result computed in Rust: the worked examples of the tutorial, and one that
//! nobody planned for.

use super::expected;
use crate::expr::Num;
use crate::host_data::{ElemType, HostData};
use std::collections::{BTreeMap, HashMap};

/// A spec with one variant, integer params, `i32` input `x` of `x_len` and output `out` of
/// `out_len`, verified by `formula`; returns the formula's expected output for `x`.
fn expected_of(params: &[(&str, i64)], out_len: &str, formula: &str, x: &[i32]) -> Vec<i32> {
    let dir = tempfile::tempdir().unwrap();
    let exp_dir = dir.path().join("kernels/e");
    std::fs::create_dir_all(&exp_dir).unwrap();
    let param_lines: String = params.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    let spec = format!(
        r#"title = "formula"
source = "k.cu"
[params]
{param_lines}
[[buffer]]
name = "x"
type = "i32"
len = "{}"
init = {{ random = [0, 7] }}
[[buffer]]
name = "out"
type = "i32"
len = "{out_len}"
output = true
[verify]
reference = "formula"
formula = "{formula}"
inputs = ["x"]
output = "out"
[[variant]]
name = "v"
kernel = "k"
grid = ["1"]
block = ["1"]
args = ["x", "out"]
"#,
        x.len()
    );
    std::fs::write(exp_dir.join("experiment.toml"), spec).unwrap();
    std::fs::write(exp_dir.join("k.cu"), "").unwrap();
    let exp = crate::spec::load(dir.path(), &dir.path().join("kernels"), "e")
        .unwrap_or_else(|d| panic!("{formula}: {}", d[0].render(false)));
    let vars: HashMap<String, Num> = params
        .iter()
        .map(|(k, v)| (k.to_string(), Num::Int(*v)))
        .collect();
    let out_len = crate::expr::Expr::parse(out_len)
        .unwrap()
        .eval(&vars)
        .ok()
        .and_then(Num::as_i64)
        .unwrap() as usize;
    let host = BTreeMap::from([("x".to_string(), HostData::I32(x.to_vec()))]);
    match expected(&exp.verify, &vars, &host, out_len, ElemType::I32) {
        Ok(HostData::I32(v)) => v,
        other => panic!("{formula}: {other:?}"),
    }
}

/// 0..n in a scrambled order, values 0..8.
fn data(n: usize) -> Vec<i32> {
    (0..n).map(|i| ((i * 7 + 3) % 11 % 8) as i32).collect()
}

#[test]
fn histogram_counts_each_bin() {
    let x = data(100);
    let got = expected_of(
        &[("N", 100), ("BINS", 8)],
        "BINS",
        "count_of(k, 0, N, x[k] == i)",
        &x,
    );
    let mut truth = vec![0; 8];
    x.iter().for_each(|v| truth[*v as usize] += 1);
    assert_eq!(got, truth);
}

#[test]
fn inclusive_and_exclusive_prefix_sums_by_aggregate_and_by_recurrence() {
    let x = data(50);
    let inclusive: Vec<i32> = x
        .iter()
        .scan(0, |acc, v| {
            *acc += v;
            Some(*acc)
        })
        .collect();
    let exclusive: Vec<i32> = inclusive.iter().zip(&x).map(|(s, v)| s - v).collect();
    let p = [("N", 50)];
    assert_eq!(
        expected_of(&p, "N", "sum_of(k, 0, i + 1, x[k])", &x),
        inclusive
    );
    assert_eq!(
        expected_of(&p, "N", "if(i == 0, x[0], ref[i-1] + x[i])", &x),
        inclusive
    );
    assert_eq!(expected_of(&p, "N", "sum_of(k, 0, i, x[k])", &x), exclusive);
    assert_eq!(
        expected_of(&p, "N", "if(i == 0, 0, ref[i-1] + x[i-1])", &x),
        exclusive
    );
}

#[test]
fn stencil_1d_with_edges_copied() {
    let x = data(30);
    let got = expected_of(
        &[("N", 30)],
        "N",
        "if(i > 0 && i < N - 1, x[i-1] + x[i] + x[i+1], x[i])",
        &x,
    );
    let truth: Vec<i32> = (0..30)
        .map(|i| match i {
            0 | 29 => x[i],
            _ => x[i - 1] + x[i] + x[i + 1],
        })
        .collect();
    assert_eq!(got, truth);
}

#[test]
fn stencil_2d_five_point_laplacian() {
    let (w, h) = (7usize, 5usize);
    let x = data(w * h);
    let got = expected_of(
        &[("W", w as i64), ("H", h as i64)],
        "W*H",
        "if(div(i, W) > 0 && div(i, W) < H - 1 && i % W > 0 && i % W < W - 1, \
         x[i-W] + x[i+W] + x[i-1] + x[i+1] - 4*x[i], 0)",
        &x,
    );
    let truth: Vec<i32> = (0..w * h)
        .map(|i| {
            let (r, c) = (i / w, i % w);
            if r > 0 && r < h - 1 && c > 0 && c < w - 1 {
                x[i - w] + x[i + w] + x[i - 1] + x[i + 1] - 4 * x[i]
            } else {
                0
            }
        })
        .collect();
    assert_eq!(got, truth);
}

#[test]
fn row_and_column_reductions() {
    let (rows, cols) = (4usize, 6usize);
    let x = data(rows * cols);
    let p = [("ROWS", rows as i64), ("COLS", cols as i64)];
    let row_sums: Vec<i32> = x.chunks(cols).map(|r| r.iter().sum()).collect();
    let col_max: Vec<i32> = (0..cols)
        .map(|c| (0..rows).map(|r| x[r * cols + c]).max().unwrap())
        .collect();
    assert_eq!(
        expected_of(&p, "ROWS", "sum_of(c, 0, COLS, x[i*COLS + c])", &x),
        row_sums
    );
    assert_eq!(
        expected_of(&p, "COLS", "max_of(r, 0, ROWS, x[r*COLS + i])", &x),
        col_max
    );
}

/// A reference nobody planned for, in TOML alone: each element's rank (how many elements are
/// smaller, ties broken by position), the core of a counting sort.
#[test]
fn an_unplanned_reference_in_toml_alone_rank_of_each_element() {
    let x = data(40);
    let got = expected_of(
        &[("N", 40)],
        "N",
        "count_of(k, 0, N, x[k] < x[i] || (x[k] == x[i] && k < i))",
        &x,
    );
    let mut order: Vec<usize> = (0..40).collect();
    order.sort_by_key(|&i| (x[i], i));
    let mut truth = vec![0; 40];
    for (rank, i) in order.into_iter().enumerate() {
        truth[i] = rank as i32;
    }
    assert_eq!(got, truth);
}
