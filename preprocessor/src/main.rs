//! The `mdbook-gpulab` binary: a thin wrapper over the library's command line.

fn main() -> std::process::ExitCode {
    mdbook_gpulab::cli::main()
}
