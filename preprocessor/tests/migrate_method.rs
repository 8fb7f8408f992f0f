//! One-shot migration (run once, then deleted): every GPU timing of data/*/*.json gets its
//! measurement method as a field, from the commit that recorded it (`METHOD_2_COMMITS`: 2, others
//! 1), and loses `"clock": "events"` (the only clock once the CUPTI kernel clock goes). The text is
//! edited line by line (a parse and re-serialisation would reprint some floats one ulp off), so
//! nothing measured changes. `cargo test --release --test migrate_method -- --ignored`.

use mdbook_gpulab::record::schema::{METHOD_2_COMMITS, SampleClock, TimingMode, same_commit};
use mdbook_gpulab::record::store::parse_recording;
use std::path::Path;

/// The method to add to each timing of `rec`, in file order (`None`: add none).
fn methods(rec: &mdbook_gpulab::record::Recording) -> Vec<Option<u32>> {
    rec.points
        .iter()
        .filter_map(|p| {
            let t = p.timing.as_ref()?;
            assert_ne!(t.clock, Some(SampleClock::Kernel));
            let by = |c: &&str| p.commit.as_deref().is_some_and(|q| same_commit(q, c));
            Some((t.mode != TimingMode::Host && t.method.is_none()).then(|| {
                if METHOD_2_COMMITS.iter().any(by) {
                    2
                } else {
                    1
                }
            }))
        })
        .collect()
}

/// `text` with each timing block's fields rewritten: `clock` dropped, `method` added where the
/// serialiser puts it (before `cpu`, `empty_kernel_ms` and `event_offset_ms`).
fn migrate_text(text: &str, mut methods: impl Iterator<Item = Option<u32>>) -> String {
    const OPEN: &str = "      \"timing\": {";
    const FIELD: &str = "        \"";
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        out.push(lines[i].to_string());
        if lines[i] != OPEN {
            i += 1;
            continue;
        }
        i += 1;
        // The block's fields, each its lines (a nested object spans several).
        let mut fields: Vec<Vec<String>> = Vec::new();
        while !lines[i].starts_with("      }") {
            if lines[i].starts_with(FIELD) {
                fields.push(Vec::new());
            }
            fields.last_mut().unwrap().push(lines[i].to_string());
            i += 1;
        }
        let name = |f: &Vec<String>| f[0][FIELD.len()..].split('"').next().unwrap().to_string();
        fields.retain(|f| name(f) != "clock");
        if let Some(m) = methods.next().unwrap() {
            let at = fields
                .iter()
                .position(|f| {
                    ["cpu", "empty_kernel_ms", "event_offset_ms"].contains(&name(f).as_str())
                })
                .unwrap_or(fields.len());
            fields.insert(at, vec![format!("{FIELD}method\": {m}")]);
        }
        let n = fields.len();
        for (k, mut f) in fields.into_iter().enumerate() {
            let last = f.last_mut().unwrap();
            let bare = last.trim_end_matches(',').to_string();
            *last = if k + 1 < n { bare + "," } else { bare };
            out.extend(f);
        }
    }
    assert!(methods.next().is_none());
    out.join("\n") + "\n"
}

#[test]
#[ignore]
fn migrate() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut files = 0;
    for dev in std::fs::read_dir(&data).unwrap() {
        let dev = dev.unwrap().path();
        if !dev.is_dir() || dev.ends_with("papers") {
            continue;
        }
        for f in std::fs::read_dir(&dev).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            let rec = parse_recording(&f, &text).unwrap();
            let new = migrate_text(&text, methods(&rec).into_iter());
            // What was read, with the method added and the clock gone.
            let mut want = rec.clone();
            for (p, m) in want
                .points
                .iter_mut()
                .filter_map(|p| p.timing.as_mut())
                .zip(methods(&rec))
            {
                p.clock = None;
                p.method = p.method.or(m);
            }
            assert_eq!(parse_recording(&f, &new).unwrap(), want, "{}", f.display());
            std::fs::write(&f, new).unwrap();
            files += 1;
        }
    }
    assert!(files > 40, "{files}");
}
