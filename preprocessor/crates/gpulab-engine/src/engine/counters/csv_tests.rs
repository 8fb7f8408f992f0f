//! Tests of `csv`.

use super::*;

/// A SYNTHETIC file in the raw-page layout (`tests/fixtures/ncu/raw.csv`).
const FIXTURE: &str = include_str!("../../../../../tests/fixtures/ncu/raw.csv");
/// Real output of ncu 2025.3.1 on the H100 (`tests/fixtures/ncu/h100-probe.csv`).
const PROBE: &str = include_str!("../../../../../tests/fixtures/ncu/h100-probe.csv");

#[test]
fn the_fixture_reads_as_launches_in_id_order_with_base_units() {
    let rows = parse(FIXTURE).unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(
        rows.iter().map(|r| r.id).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(rows[0].kernel, "MatrixMulKernel_2");
    assert_eq!(rows[0].values["smsp__inst_executed.sum"], 1_234_567.0);
    // `usecond` in the units line: converted to nanoseconds.
    assert_eq!(rows[0].values["gpu__time_duration.sum"], 13_500.0);
    // `Kbyte`: to bytes.
    assert_eq!(rows[0].values["dram__bytes_read.sum"], 372_000.0);
    assert!(
        !rows[4].values.contains_key("dram__bytes_write.sum"),
        "n/a is absent, not 0"
    );
}

/// ncu 2025.3.1's own output on the H100 (the coordinator's probe, device-notes): the details
/// layout, thousands separators, `ns`, the program's output and ==PROF== lines in between.
#[test]
fn ncu_2025_3_output_on_the_h100_reads_as_launches() {
    let rows = parse(PROBE).unwrap();
    let copy = rows.iter().find(|r| r.kernel == "copy").unwrap();
    assert_eq!(copy.id, 1);
    assert_eq!(copy.values["dram__bytes_read.sum"], 67_123_456.0);
    assert_eq!(copy.values["gpu__time_duration.sum"], 55_936.0);
    let bank = rows.iter().find(|r| r.kernel == "bank").unwrap();
    assert_eq!(
        bank.values["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"],
        31.0
    );
    assert_eq!(bank.values["smsp__inst_executed.sum"], 20.0);
    assert!(rows.windows(2).all(|w| w[0].id < w[1].id));
}

#[test]
fn prof_lines_and_the_programs_output_are_not_csv() {
    let text = "==PROF== Connected to process 1\n{\"start\":{\"index\":0}}\n\"ID\",\"Kernel Name\",\"a__b.sum\"\n\"\",\"\",\"inst\"\n\"1\",\"k, with comma\",\"1,024\"\n\"0\",\"k\",\"5\"\n";
    let rows = parse(text).unwrap();
    assert_eq!(rows[0].id, 0);
    assert_eq!(rows[1].kernel, "k, with comma");
    assert_eq!(rows[1].values["a__b.sum"], 1024.0);
}

#[test]
fn a_report_without_rows_or_columns_is_an_error_not_empty_counters() {
    assert!(matches!(
        parse("==PROF== No kernels were profiled.\n"),
        Err(CsvError::NoHeader(_))
    ));
    assert_eq!(
        parse("\"ID\",\"x__y.sum\"\n\"0\",\"1\"\n"),
        Err(CsvError::NoColumn("Kernel Name"))
    );
    assert!(matches!(
        parse("\"ID\",\"Kernel Name\"\n\"0\"\n"),
        Err(CsvError::Line { line: 2, .. })
    ));
}
