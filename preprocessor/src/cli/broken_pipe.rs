//! Output piped into a reader that stops early (`list | head`): a quiet exit, not a panic.

/// The exit status of a process killed by SIGPIPE (128 + 13), as `yes | head` reports it.
pub(crate) const STATUS: i32 = 141;

/// Whether a panic message is the standard library's report of a print to a closed pipe.
pub(crate) fn is_broken_pipe_print(message: &str) -> bool {
    (message.starts_with("failed printing to stdout")
        || message.starts_with("failed printing to stderr"))
        && message.contains("Broken pipe")
}

/// Installs the panic hook: a print to a closed pipe exits quietly with [`STATUS`].
pub(crate) fn install() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if is_broken_pipe_print(message) {
            std::process::exit(STATUS);
        }
        default(info);
    }));
}

#[cfg(test)]
#[path = "broken_pipe_tests.rs"]
mod tests;
