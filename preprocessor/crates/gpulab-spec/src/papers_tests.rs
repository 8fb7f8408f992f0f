//! Tests of `papers`.

use super::*;

/// Widuch's Table 2 (a CPU's times) was captioned "paper: none (widuch2010, Table 2)".
#[test]
fn a_table_measured_on_no_gpu_is_named_by_its_machine() {
    let t = PaperTable::parse(
        "t2",
        Path::new("t2.csv"),
        "# gpu: none (CPU: Synthetic CPU 2.2 GHz, 4 GB RAM)\nN,variant,time_ms\n1,a,1\n",
    )
    .unwrap();
    assert_eq!(t.gpu_short(), Some(("CPU: Synthetic CPU 2.2 GHz", false)));
}

// Synthetic paper table (not a real paper's numbers).
const SYNTHETIC: &str = "\
# paper: synth2020
# item: Table 9 — synthetic times
# gpu: Synthetic GPU 1
# units: time_ms=ms, speed=GB/s
N,BLOCK,variant,time_ms,speed,gflops
160,16x16,shared_2d,0.52,,1.5
320,\"8x8\",shared_2d,4.25,12.5,
640.5,, \"odd, name\" ,1e1,,
";

fn table() -> PaperTable {
    PaperTable::parse("synth2020/table9", Path::new("t.csv"), SYNTHETIC).unwrap()
}

#[test]
fn parses_meta_and_rows() {
    let t = table();
    assert_eq!(t.gpu(), Some("Synthetic GPU 1"));
    assert_eq!(t.gpu_short(), Some(("Synthetic GPU 1", true)));
    assert_eq!(t.rows.len(), 3);
    assert_eq!(t.rows[0].axes["N"], ParamValue::Int(160));
    assert_eq!(t.rows[0].axes["BLOCK"], ParamValue::Str("16x16".into()));
    assert_eq!(t.rows[0].metrics["time_ms"], 0.52);
    assert_eq!(t.rows[0].metrics["gflops"], 1.5);
    assert!(!t.rows[0].metrics.contains_key("speed"));
    assert_eq!(t.rows[1].metrics["speed"], 12.5);
    assert_eq!(t.rows[2].variant, "odd, name");
    assert_eq!(t.rows[2].axes["N"], ParamValue::Float(640.5));
    assert!(!t.rows[2].axes.contains_key("BLOCK"));
    assert_eq!(t.citation(), "synth2020, Table 9");
}

#[test]
fn units_and_lookup() {
    let t = table();
    assert_eq!(t.unit_of("time_ms"), Some(Unit::Millis));
    assert_eq!(t.unit_of("speed"), Some(Unit::GigabytesPerSec));
    assert_eq!(t.unit_of("gflops"), Some(Unit::GflopsPerSec));
    assert_eq!(t.unit_of("nope"), None);
    // A rate or time in a unit we do not know is not read as the built-in one (MB/s shown as
    // GB/s made a 1000× ratio look like 1.0×); a count's description is.
    let odd = PaperTable::parse(
        "t",
        Path::new("t.csv"),
        "# units: gbps=MB/s, time_ms=us\nN,variant,gbps\n1,a,1\n",
    )
    .unwrap();
    assert_eq!(odd.unit_of("gbps"), None);
    assert_eq!(odd.unit_of("time_ms"), None);
    let mut axes = BTreeMap::new();
    axes.insert("N".to_string(), ParamValue::Int(320));
    axes.insert("BLOCK".to_string(), ParamValue::Str("8x8".into()));
    axes.insert("M".to_string(), ParamValue::Int(16));
    assert_eq!(
        t.lookup("shared_2d", &axes).unwrap().metrics["time_ms"],
        4.25
    );
    assert!(t.lookup("global_2d", &axes).is_none());
    axes.insert("N".to_string(), ParamValue::Float(160.0));
    axes.insert("BLOCK".to_string(), ParamValue::Str("16x16".into()));
    assert!(
        t.lookup("shared_2d", &axes).is_some(),
        "int and float compare numerically"
    );
}

#[test]
fn errors_name_file_and_line() {
    let bad = "# units: time_ms=ms\nN,variant,time_ms\n1,a,fast\n";
    let err = PaperTable::parse("x/y", Path::new("data/papers/x/y.csv"), bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        "data/papers/x/y.csv:3: `time_ms` = `fast` is not a number"
    );
    let short = "N,variant,time_ms\n1,a\n";
    assert!(
        PaperTable::parse("x/y", Path::new("p"), short)
            .unwrap_err()
            .to_string()
            .starts_with("p:2:")
    );
    let no_variant = "N,time_ms\n";
    assert!(PaperTable::parse("x/y", Path::new("p"), no_variant).is_err());
    assert!(PaperTable::parse("x/y", Path::new("p"), "# only meta\n").is_err());
    assert!(PaperTable::parse("x/y", Path::new("p"), "N,variant,time_ms\n\"1,a,2\n").is_err());
}

#[test]
fn load_reads_papers_folder_and_rejects_bad_ids() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("papers").join("synth2020");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("table9.csv"), SYNTHETIC).unwrap();
    let t = PaperTable::load(dir.path(), "synth2020/table9").unwrap();
    assert_eq!(t.id, "synth2020/table9");
    assert_eq!(t.rows.len(), 3);
    assert!(matches!(
        PaperTable::load(dir.path(), "../etc"),
        Err(PaperError::InvalidId { .. })
    ));
    assert!(matches!(
        PaperTable::load(dir.path(), "a/../../b"),
        Err(PaperError::InvalidId { .. })
    ));
    let missing = PaperTable::load(dir.path(), "synth2020/none").unwrap_err();
    assert!(missing.to_string().contains("none.csv"));
}

/// Regression (session 10): a row given twice was accepted (lookups took the first), and a
/// CSV saved by a spreadsheet with a byte-order mark named its first axis "\u{feff}N", so no
/// cell matched.
#[test]
fn a_repeated_row_is_an_error_and_a_byte_order_mark_is_ignored() {
    let twice = "N,variant,time_ms\n16,a,1.0\n32,a,2.0\n16,a,3.0\n";
    let err = PaperTable::parse("synth/t", Path::new("p.csv"), twice)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("p.csv:4:")
            && err.contains("repeats the variant and axes of line 2 (`a`, N = 16)"),
        "{err}"
    );
    // The same number written as an integer and as a float; a row with N left blank, which
    // would match the cells of the row before it.
    for (text, first) in [
        ("N,variant,time_ms\n16,a,1.0\n16.0,a,3.0\n", 2),
        ("N,BS,variant,time_ms\n16,8,a,1.0\n,8,a,3.0\n", 2),
    ] {
        let err = PaperTable::parse("synth/t", Path::new("p.csv"), text)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("repeats the variant and axes of line {first}")),
            "{err}"
        );
    }
    let bom = "\u{feff}N,variant,time_ms\n16,a,1.0\n";
    let t = PaperTable::parse("synth/t", Path::new("p.csv"), bom).unwrap();
    assert!(t.rows[0].axes.contains_key("N"), "{:?}", t.rows[0].axes);
}

#[test]
fn free_text_units_and_info_columns() {
    // Synthetic occupancy table: units in words, a string column after `variant`.
    let text = "# item: Table 2 - theoretical occupancy\n\
                # units: registers=registers per thread, occupancy_pct=%, time_ms=parsecs\n\
                BS,variant,registers,occupancy_pct,limiter\n8,v1,10,33.3,blocks\n";
    let t = PaperTable::parse("synth/occ", Path::new("p"), text).unwrap();
    assert_eq!(t.rows[0].metrics["registers"], 10.0);
    assert_eq!(t.rows[0].axes.len(), 1, "`limiter` is not an axis");
    assert_eq!(t.info_columns, vec!["limiter".to_string()]);
    assert_eq!(t.unit_of("occupancy_pct"), Some(Unit::Percent));
    assert_eq!(t.unit_of("registers"), None);
    assert_eq!(
        t.unit_of("time_ms"),
        None,
        "a time in a unit we cannot read is not compared"
    );
    let mut axes = BTreeMap::new();
    axes.insert("BS".to_string(), ParamValue::Int(8));
    assert!(t.lookup("v1", &axes).is_some());
    assert_eq!(t.citation(), "synth, Table 2");
    let long = PaperTable {
        id: "k/variants_a".into(),
        info_columns: Vec::new(),
        meta: [(
            "item".to_string(),
            "average time of every variant and of the CPU loop, 1024 x 1024".to_string(),
        )]
        .into_iter()
        .collect(),
        rows: Vec::new(),
    };
    assert_eq!(long.citation(), "k, variants_a");
}

/// Kalgin–Baldin's "tall blocks beat their mirror image" could not be evaluated on the article's
/// own table: the mirror image of a shape is another cell of the same table.
#[test]
fn mirror_rows_are_the_printed_cells_with_two_axes_swapped() {
    // Synthetic numbers.
    let text = "# mirror: wide = tall with BX, BY swapped\n# units: time_ms=ms\n\
                N,BX,BY,variant,time_ms\n64,1,64,tall,1.5\n64,64,1,tall,3.0\n64,2,2,tall,2.0\n";
    let t = PaperTable::parse("k/shapes", Path::new("p"), text).unwrap();
    let at = |bx: i64, by: i64| {
        let axes: BTreeMap<String, ParamValue> = [
            ("N".to_string(), ParamValue::Int(64)),
            ("BX".to_string(), ParamValue::Int(bx)),
            ("BY".to_string(), ParamValue::Int(by)),
        ]
        .into_iter()
        .collect();
        t.lookup("wide", &axes).map(|r| r.metrics["time_ms"])
    };
    assert_eq!(at(1, 64), Some(3.0), "the mirror of 1x64 is the 64x1 cell");
    assert_eq!(at(64, 1), Some(1.5));
    assert_eq!(at(2, 2), Some(2.0));
    assert_eq!(t.rows.len(), 6);
    let clash = "# mirror: tall = wide with BX, BY swapped\nBX,BY,variant,time_ms\n1,2,tall,1\n";
    assert!(PaperTable::parse("k/s", Path::new("p"), clash).is_err());
    let none = "# mirror: m = other with BX, BY swapped\nBX,BY,variant,time_ms\n1,2,tall,1\n";
    let err = PaperTable::parse("k/s", Path::new("p"), none).unwrap_err();
    assert!(err.to_string().contains("finds no `other` row"), "{err}");
    let bad = "# mirror: m naive\nBX,BY,variant,time_ms\n1,2,tall,1\n";
    assert!(PaperTable::parse("k/s", Path::new("p"), bad).is_err());
}

#[test]
fn csv_quotes() {
    assert_eq!(
        split_csv_line("a,\"b,c\",\"d\"\"e\"").unwrap(),
        vec!["a", "b,c", "d\"e"]
    );
    assert_eq!(split_csv_line("").unwrap(), vec![""]);
    assert!(split_csv_line("\"open").is_err());
}
