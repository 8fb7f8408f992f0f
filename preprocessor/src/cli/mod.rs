//! The `mdbook-gpulab` command line: mdBook's preprocessor protocol and the commands (`anyhow` here).

mod book;
mod broken_pipe;
mod build;
mod calibrate;
mod check;
mod check_kernels;
mod devices;
mod install;
mod launch_info;
mod list;
mod mdbook_json;
mod merge;
mod merge_files;
mod ncu_verdicts;
mod point_facts;
mod protocol;
mod record;
mod record_counters;
mod record_estimate;
mod record_report;
mod run_cell;

use crate::config::Mode;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mdbook-gpulab",
    version,
    about = "Run CUDA memory experiments and render them into an mdBook"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// mdBook asks whether a renderer is supported (exit 0: yes, 1: no).
    Supports {
        /// The renderer's name (`html`; any other is not supported).
        renderer: String,
    },
    /// Build the book in-process, as `mdbook build` would (no separate mdbook install needed).
    Build {
        /// The book's root folder (with book.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// A stale or unreadable recording, or an invalid directive, is an error (an experiment
        /// awaiting its first GPU run and a failed point stay warnings).
        #[arg(long)]
        strict: bool,
        /// When to run kernels (default: book.toml's `mode`, else auto).
        #[arg(long, value_enum)]
        mode: Option<Mode>,
    },
    /// Set up an existing mdBook for gpulab: [preprocessor.gpulab], the stylesheet, kernels/ and data/.
    Install {
        /// The book's root folder (with book.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Validate every directive and spec; compile every kernel (or those of `--experiment`,
    /// `--chapter`) with NVRTC when available, each build once until it changes.
    Check {
        /// The book's root folder (with book.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
        #[command(flatten)]
        args: check::CheckArgs,
    },
    /// Run every missing or stale point on this machine's GPU and write data/.
    Record {
        /// The book's root folder (with book.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
        #[command(flatten)]
        args: record::RecordArgs,
    },
    /// Merge the recordings of other data/ folders (shards from other machines) into this
    /// book's, point by point: the newer recording of a point wins.
    Merge {
        /// Folders to merge: data/ folders, or copies of the book (their data/ is used).
        #[arg(required = true)]
        sources: Vec<PathBuf>,
        /// The book's root folder (with book.toml).
        #[arg(long, default_value = ".")]
        dir: PathBuf,
    },
    /// Run one directive (`chapter.md#2`) or a chapter's directives and print the tables
    /// (without a GPU: print the recorded tables).
    Run {
        /// Chapter path (relative to the book's src folder or the repository), optionally `#n`.
        target: String,
        /// The book's root folder (with book.toml).
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// Print the recorded tables and run nothing, even on a machine with a GPU.
        #[arg(long)]
        recorded: bool,
    },
    /// List the GPUs visible, with their peaks.
    Devices,
    /// Time an empty kernel the way cold points are timed (events) and print it as JSON: one
    /// side of the event-overhead calibration that `scripts/event_offset.py` stores.
    Calibrate {
        /// The GPU's ordinal.
        #[arg(long, default_value_t = 0)]
        gpu: usize,
        /// Samples to take.
        #[arg(long, default_value_t = 400)]
        samples: usize,
        /// Launches of the empty kernel per sample, back to back (2: what a second launch adds,
        /// the gap between launches that Nsight Compute's sum of durations does not count).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
        launches: u32,
    },
    /// Internal: print the resolved launch of a kernel variant at a point, or of many (for
    /// scripts/ncu_check.py).
    #[command(hide = true)]
    LaunchInfo(launch_info::LaunchInfoArgs),
    /// Internal: print a Nsight Compute check's verdicts, as the book computes them (for
    /// scripts/ncu_check.py).
    #[command(hide = true)]
    NcuVerdicts {
        /// The check, `data/<slug>/checks/ncu.json`.
        file: PathBuf,
    },
    /// Internal: run a job from stdin (or `--job FILE`) in a worker process.
    #[command(hide = true)]
    Worker {
        /// Read the job from this file instead of stdin (a profiler between us and the worker
        /// need not pass stdin through).
        #[arg(long)]
        job: Option<PathBuf>,
    },
    /// Print the reproduction status of every item of the papers' inventories and every `reproduces` id.
    List {
        /// The book's root folder (with book.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Print the table as JSON (items, states, claims per device), for scripts.
        #[arg(long)]
        json: bool,
    },
}

/// `--rerun`'s optional experiment name, refusing a book folder written after the flag.
fn parse_rerun(s: &str) -> Result<String, String> {
    // `--rerun` alone: every experiment.
    if s.is_empty() {
        return Ok(String::new());
    }
    let looks_like_a_path = s.contains(['/', '\\'])
        || s == "."
        || s == ".."
        || std::path::Path::new(s).join("book.toml").is_file();
    if looks_like_a_path {
        return Err(format!(
            "`{s}` is a folder, not an experiment: `--rerun` takes an optional experiment name, so write the book folder first (`record {s} --rerun`)"
        ));
    }
    Ok(s.to_string())
}

/// The architectures `check --arch` compiles for.
#[derive(Clone, Debug)]
struct Archs(Vec<(u32, u32)>);

/// `all` (every architecture NVRTC supports), or one as [`parse_arch`] reads it.
fn parse_archs(s: &str) -> Result<Archs, String> {
    match s {
        "all" => crate::gpu::supported_archs()
            .map(Archs)
            .map_err(|e| format!("`--arch all` asks NVRTC which architectures it supports: {e}")),
        one => parse_arch(one).map(|a| Archs(vec![a])),
    }
}

/// `sm_90` (or `90`) → `(9, 0)`; `sm_100` → `(10, 0)`.
fn parse_arch(s: &str) -> Result<(u32, u32), String> {
    let digits = s.strip_prefix("sm_").unwrap_or(s);
    match (digits.len(), digits.parse::<u32>()) {
        (2..=3, Ok(n)) => Ok((n / 10, n % 10)),
        _ => Err(format!("`{s}` is not an architecture like sm_90")),
    }
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    broken_pipe::install();
    let cli = Cli::parse();
    let result = match cli.command {
        // Run by hand in a terminal: mdBook's JSON will never come, so say what the tool does.
        None if std::io::IsTerminal::is_terminal(&std::io::stdin()) => {
            use clap::CommandFactory;
            let mut help = Cli::command();
            let _ = help.print_help();
            eprintln!(
                "\n(With no command, mdbook-gpulab is mdBook's preprocessor and reads the book as JSON on stdin.)"
            );
            return ExitCode::from(2);
        }
        None => protocol::run_preprocessor(),
        Some(Command::Supports { renderer }) => return protocol::supports(&renderer),
        Some(Command::Build { dir, strict, mode }) => build::run(&dir, strict, mode),
        Some(Command::Check { dir, args }) => check::run(&dir, &args),
        Some(Command::List { dir, json }) => list::run(&dir, json),
        Some(Command::Install { dir }) => install::run(&dir),
        Some(Command::Record { dir, args }) => match args.estimate.clone() {
            Some(device) => record_estimate::run(&dir, &device, &args),
            None => record::run(&dir, args),
        },
        Some(Command::Merge { sources, dir }) => merge::run(&dir, &sources),
        Some(Command::Run {
            target,
            dir,
            recorded,
        }) => run_cell::run(&dir, &target, recorded),
        Some(Command::Devices) => devices::run(),
        Some(Command::Calibrate {
            gpu,
            samples,
            launches,
        }) => calibrate::run(gpu, samples, launches as usize),
        Some(Command::LaunchInfo(args)) => args.requests().and_then(|(requests, many)| {
            launch_info::run(&args.dir, requests, many, args.device.as_deref())
        }),
        Some(Command::NcuVerdicts { file }) => ncu_verdicts::run(&file),
        Some(Command::Worker { job }) => {
            return crate::engine::worker::worker_main(job.as_deref());
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Invalid directives or specs: their diagnostics, without the contexts above them.
            match invalid_input(&e) {
                Some(diags) => crate::preprocess::report(diags),
                None => eprintln!("error: {e:#}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// The diagnostics of an invalid directive or spec anywhere in `e`'s chain.
fn invalid_input(e: &anyhow::Error) -> Option<&[crate::diagnostic::Diagnostic]> {
    use crate::error::Error;
    use crate::preprocess::BuildError;
    e.chain().find_map(|cause| {
        match cause
            .downcast_ref::<Error>()
            .or_else(|| match cause.downcast_ref::<BuildError>() {
                Some(BuildError::Library(inner)) => Some(inner),
                _ => None,
            }) {
            Some(Error::Invalid(diags)) => Some(diags.as_slice()),
            _ => None,
        }
    })
}
