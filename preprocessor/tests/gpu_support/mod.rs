//! Shared by the GPU end-to-end tests (`gpu/engine.rs`, `gpu/faults.rs`): the faults fixture book,
//! embedded so that the test executables need no source tree on the GPU machine, and the binary.

#![allow(dead_code)] // each test crate uses a different subset

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

pub(crate) const BOOK: &[(&str, &str)] = &[
    ("book.toml", include_str!("../fixtures/faults/book.toml")),
    (
        "src/SUMMARY.md",
        include_str!("../fixtures/faults/src/SUMMARY.md"),
    ),
    (
        "src/faults.md",
        include_str!("../fixtures/faults/src/faults.md"),
    ),
];

/// The binary under test (see `common::gpu_binary`).
pub(crate) fn binary() -> PathBuf {
    super::common::gpu_binary()
}

pub(crate) struct Book {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
}

impl Book {
    pub(crate) fn new() -> Book {
        let tmp = tempfile::tempdir().expect("temporary folder");
        let root = tmp.path().join("faults");
        super::common::write_files(&root, BOOK.iter().chain(super::common::FAULTS_EXPERIMENT));
        Book { _tmp: tmp, root }
    }

    pub(crate) fn gpulab(&self, args: &[&str]) -> Output {
        self.gpulab_with(args, &[])
    }

    /// `gpulab` with extra environment variables (e.g. `GPULAB_HIDE_LIBS`).
    pub(crate) fn gpulab_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let out = Command::new(binary())
            .args(args)
            .current_dir(&self.root)
            .env("GPULAB_COMMIT", "gpu-engine-test")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .expect("running mdbook-gpulab");
        eprintln!(
            "$ mdbook-gpulab {}\n{}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Writes `text` to `rel` in the book.
    pub(crate) fn write(&self, rel: &str, text: &str) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// `data/<device>/faults.json` (the only device this test records on).
    pub(crate) fn recording_path(&self) -> PathBuf {
        let data = self.root.join("data");
        let dev = std::fs::read_dir(&data)
            .expect("data/ written")
            .filter_map(Result::ok)
            .find(|e| e.path().is_dir() && e.file_name() != "papers")
            .expect("a device folder in data/");
        dev.path().join("faults.json")
    }

    pub(crate) fn recording(&self) -> Value {
        let text = std::fs::read_to_string(self.recording_path()).expect("faults.json");
        serde_json::from_str(&text).expect("faults.json is JSON")
    }
}

/// Sends `signal` (`INT`, `TERM`) to `child` and waits for it to exit (at most 30 s).
pub(crate) fn interrupt(child: &mut Child, signal: &str) -> ExitStatus {
    let pid = child.id().to_string();
    let kill = Command::new("kill")
        .args([format!("-{signal}"), pid])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(Instant::now() < deadline, "record ignored SIG{signal}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Whether a worker process is still running (one left behind would hold the GPU).
pub(crate) fn worker_left() -> bool {
    let ps = Command::new("pgrep")
        .args(["-f", "mdbook-gpulab worker"])
        .output()
        .unwrap();
    !String::from_utf8_lossy(&ps.stdout).trim().is_empty()
}
