//! The CPU integration tests, one binary (faster to link than one per file): `cargo test --test it`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../fuzz_support/mod.rs"]
mod fuzz_support;

mod anchors;
mod book_links;
mod check_ui;
mod ci_book;
mod cli;
mod counters;
mod derived_metrics;
mod design_files;
mod escaping;
mod event_offset_script;
mod faults;
mod features_book;
mod fixture_books;
mod fleet;
mod fuzz;
mod hostile;
mod install;
mod inventory;
mod layering;
mod metric_docs;
mod ncu_check;
mod regressions;
mod render_cache;
mod self_check;
