//! Tests of `record`.

use super::*;
use crate::engine::schedule::count;

/// Bundles keep what one worker makes once: every point of a bundle has the same buffer
/// lengths and reference, CPU baselines and `formula` references are never bundled, and the
/// costly sets (SGEMM's and matmul_widuch's references) are.
#[test]
fn bundles_of_the_handbook_share_their_set_and_reference_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (ws, found) = super::super::book::load(&root).unwrap();
    let mut recordings = Recordings::new(ws.data()).unwrap();
    let device = "nvidia-h200";
    let all = groups_to_run(
        &ws,
        &found,
        &mut recordings,
        device,
        &RecordArgs::rerun_of(Vec::new()),
    )
    .unwrap();
    let bundles = set_bundles(&ws, &all, &recordings, device);
    let mut by_bundle: std::collections::BTreeMap<&str, Vec<&JobPoint>> = Default::default();
    for g in &all {
        let exp = ws.spec(&g.experiment).unwrap();
        for p in &g.points {
            let Some((set, _)) = bundles.get(&crate::engine::shard::point_id(&g.experiment, p))
            else {
                continue;
            };
            let variant = exp.variant(&p.variant).unwrap();
            assert!(
                !matches!(variant.exec, crate::spec::Exec::Cpu(_)),
                "a CPU baseline bundled: {} {p:?}",
                g.experiment
            );
            assert!(
                !matches!(&exp.verify_for(variant).reference, crate::spec::Reference::Builtin(r) if r == "formula"),
                "a formula reference bundled: {} {p:?}",
                g.experiment
            );
            by_bundle.entry(set).or_default().push(p);
        }
    }
    assert!(by_bundle.keys().any(|s| s.starts_with("sgemm")));
    assert!(by_bundle.keys().any(|s| s.starts_with("matmul_widuch")));
    for (set, points) in &by_bundle {
        let n: std::collections::BTreeSet<_> = points
            .iter()
            .map(|p| p.params.get("N").map(|v| v.typed_text()))
            .collect();
        assert_eq!(n.len(), 1, "{set}: sizes {n:?} in one bundle");
    }
}

/// The balance promised for `--shard K/N` and `--gpus`, on the handbook's own recordings.
#[test]
fn shards_of_the_handbook_partition_its_points_and_balance_within_10_percent() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (ws, found) = super::super::book::load(&root).unwrap();
    let mut recordings = Recordings::new(ws.data()).unwrap();
    let devices = ws.data().devices().unwrap();
    assert!(
        !devices.is_empty(),
        "the handbook has no recordings to predict from"
    );
    let args = RecordArgs::rerun_of(Vec::new());
    for device in devices {
        let all = groups_to_run(&ws, &found, &mut recordings, &device, &args).unwrap();
        let costs = predicted(&all, &recordings, &device);
        let bundles = super::set_bundles(&ws, &all, &recordings, &device);
        assert!(
            bundles.values().any(|(set, _)| set.starts_with("sgemm")),
            "{device}: SGEMM's references are worth keeping together"
        );
        let total: usize = all.iter().map(|g| g.points.len()).sum();
        assert!(total > 500, "{device}: only {total} points planned");
        let mut ids: Vec<String> = all
            .iter()
            .flat_map(|g| g.points.iter().map(|p| shard::point_id(&g.experiment, p)))
            .collect();
        ids.sort();
        for n in [2, 4, 8] {
            let shards = shard::split(&all, &shard::costs_of(&all, &costs), &bundles, n);
            // No buffer set worth keeping together is made by two shards.
            let mut shard_of_set: HashMap<&str, usize> = HashMap::new();
            for (k, (gs, _)) in shards.iter().enumerate() {
                for g in gs {
                    for p in &g.points {
                        if let Some((set, _)) = bundles.get(&shard::point_id(&g.experiment, p)) {
                            let first = *shard_of_set.entry(set).or_insert(k);
                            assert_eq!(first, k, "{device}, N={n}: set {set:?} in two shards");
                        }
                    }
                }
            }
            let mut got: Vec<String> = shards
                .iter()
                .flat_map(|(gs, _)| {
                    gs.iter()
                        .flat_map(|g| g.points.iter().map(|p| shard::point_id(&g.experiment, p)))
                })
                .collect();
            got.sort();
            assert_eq!(
                got, ids,
                "{device}, N={n}: the shards must partition the points"
            );
            let loads: Vec<f64> = shards.iter().map(|s| s.1).collect();
            let mean = loads.iter().sum::<f64>() / n as f64;
            let max = loads.iter().cloned().fold(0.0, f64::max);
            eprintln!(
                "{device} N={n}: predicted {loads:.1?} s, max/mean {:.3}",
                max / mean
            );
            assert!(max / mean <= 1.1, "{device}, N={n}: {loads:?}");
        }
    }
}

/// `--rerun-unless-from C` plans exactly the points whose recording names no commit of C (plus
/// the missing or stale ones, of which the handbook has none), on the handbook's recordings.
#[test]
fn rerun_unless_from_plans_the_points_the_listed_commits_did_not_record() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (ws, found) = super::super::book::load(&root).unwrap();
    let mut recordings = Recordings::new(ws.data()).unwrap();
    let device = ws.data().devices().unwrap()[0].clone();
    let every = groups_to_run(
        &ws,
        &found,
        &mut recordings,
        &device,
        &RecordArgs::rerun_of(Vec::new()),
    )
    .unwrap();
    // The commit of each planned point's recording on this device; points with none are
    // missing, and planned whatever the commits named.
    let mut commits: HashMap<String, usize> = HashMap::new();
    let mut missing = 0;
    for g in &every {
        for p in &g.points {
            let mine = recordings
                .of(&g.experiment)
                .into_iter()
                .find(|r| r.device.slug == device)
                .and_then(|r| {
                    r.points
                        .iter()
                        .find(|q| q.variant == p.variant && q.params == p.params)
                });
            match mine.filter(|q| q.measured_the_current_way()) {
                Some(q) => {
                    *commits
                        .entry(q.commit.clone().unwrap_or_default())
                        .or_default() += 1
                }
                None => missing += 1,
            }
        }
    }
    let recorded: usize = commits.values().sum();
    let (top, top_n) = commits
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(c, n)| (c.clone(), *n))
        .unwrap();
    let mut planned = |from: Vec<String>| -> usize {
        let args = RecordArgs {
            rerun: None,
            rerun_unless_from: from,
            ..RecordArgs::rerun_of(Vec::new())
        };
        count(&groups_to_run(&ws, &found, &mut recordings, &device, &args).unwrap())
    };
    assert_eq!(
        planned(Vec::new()),
        missing,
        "the missing and older-method points"
    );
    assert_eq!(
        planned(vec![top.clone()]),
        missing + recorded - top_n,
        "{device}: all but {top}'s"
    );
    assert_eq!(planned(commits.keys().cloned().collect()), missing);
    assert_eq!(planned(vec!["0000000".into()]), missing + recorded);
}

#[test]
fn gpus_parse() {
    assert_eq!(Gpus::parse("all"), Ok(Gpus::All));
    assert_eq!(
        Gpus::parse("0, 1"),
        Ok(Gpus::List(vec!["0".into(), "1".into()]))
    );
    assert!(Gpus::parse("0,,1").is_err());
}
