//! `record --counters`: the profiled pass for the points of directives that declare `counters`.

use crate::engine::counters::{self, Request, ncu::Ncu};
use crate::engine::job::JobPoint;
use crate::engine::recorder::Recorder;
use crate::plan::plan;
use crate::results::Recordings;
use crate::results::point_index::PointIndex;
use crate::workspace::{FoundDirective, Workspace};
use std::path::Path;

/// The profiled pass over the book at `dir` (`only` these experiments) on `gpu`, with `profiler`.
pub(super) fn run(
    dir: &Path,
    only: &[String],
    gpu: Option<String>,
    profiler: &Result<Ncu, String>,
) -> anyhow::Result<()> {
    let (ws, found) = super::book::load(dir)?;
    let declaring = declaring(&found, only);
    if declaring.is_empty() {
        eprintln!("counters: no directive declares `counters`; nothing to profile");
        return Ok(());
    }
    let profiler = match profiler {
        Ok(p) => p,
        Err(why) => {
            let points: usize = declaring
                .iter()
                .filter_map(|(d, exp)| plan(d, exp, &ws.sources).ok())
                .map(|p| p.len())
                .sum();
            eprintln!(
                "counters: skipped: {why}. {} directive(s) declare counters ({points} planned point(s)); \
                 their pages show \"awaiting a GPU run\" until `mdbook-gpulab record --counters` runs where ncu is installed",
                declaring.len()
            );
            return Ok(());
        }
    };
    let recorder = Recorder {
        verbose: true,
        gpu,
        bars: None,
        cpus: None,
    };
    let device = recorder.device(&ws)?.slug;
    let mut recordings = Recordings::new(ws.data())?;
    let requests = requests(&ws, &declaring, &mut recordings, &device)?;
    if requests.is_empty() {
        eprintln!("counters: every verified, current point that declares counters has them");
        return Ok(());
    }
    eprintln!("counters: profiling under {}", profiler.version);
    let mut first_error = None;
    for req in &requests {
        let started = std::time::Instant::now();
        let groups: Vec<&str> = req.groups.iter().map(|g| g.name()).collect();
        match counters::profile(&ws, &recorder, profiler, req) {
            Ok(n) => eprintln!(
                "counters: {n} of {} point(s) of `{}` recorded in {:.1} s ({})",
                req.points.len(),
                req.experiment,
                started.elapsed().as_secs_f64(),
                groups.join(", ")
            ),
            Err(e) => {
                eprintln!("counters: {e}");
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map_or(Ok(()), |e| Err(e.into()))
}

type Declaring<'a> = Vec<(&'a crate::directive::Directive, &'a crate::spec::Experiment)>;

/// The valid directives that declare counters, of the `only` experiments.
fn declaring<'a>(found: &'a [FoundDirective], only: &[String]) -> Declaring<'a> {
    found
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .filter(|(d, exp)| !d.counters.is_empty() && (only.is_empty() || only.contains(&exp.name)))
        .map(|(d, exp)| (d, exp.as_ref()))
        .collect()
}

/// One request per experiment: its points that want counters on `device`, and all their groups.
fn requests(
    ws: &Workspace,
    declaring: &Declaring,
    recordings: &mut Recordings,
    device: &str,
) -> anyhow::Result<Vec<Request>> {
    let mut out: Vec<Request> = Vec::new();
    for (d, exp) in declaring {
        recordings.preload(exp)?;
        let rec = recordings
            .of(&exp.name)
            .into_iter()
            .find(|r| r.device.slug == device)
            .map(PointIndex::new);
        for p in plan(d, exp, &ws.sources)? {
            let recorded = rec.as_ref().and_then(|r| r.find(&p));
            if !counters::wants(recorded, &p.key.on(device), &d.counters) {
                continue;
            }
            let i = out.iter().position(|r| r.experiment == exp.name);
            let i = i.unwrap_or_else(|| {
                out.push(Request {
                    experiment: exp.name.clone(),
                    groups: Vec::new(),
                    points: Vec::new(),
                });
                out.len() - 1
            });
            let points = &mut out[i].points;
            if !points
                .iter()
                .any(|q| q.variant == p.variant && q.params == p.params)
            {
                points.push(JobPoint::new(&p.variant, &p.params, &p.key));
            }
        }
    }
    // A point profiled again gets every group (its stored counters are replaced as a whole).
    for req in &mut out {
        let mine = declaring
            .iter()
            .filter(|(_, exp)| exp.name == req.experiment);
        for g in mine.flat_map(|(d, _)| &d.counters) {
            if !req.groups.contains(g) {
                req.groups.push(*g);
            }
        }
    }
    Ok(out)
}
