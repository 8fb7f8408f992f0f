//! Tests of `broken_pipe`.

use super::*;

#[test]
fn only_the_standard_librarys_broken_pipe_print_is_quiet() {
    assert!(is_broken_pipe_print(
        "failed printing to stdout: Broken pipe (os error 32)"
    ));
    assert!(is_broken_pipe_print(
        "failed printing to stderr: Broken pipe (os error 32)"
    ));
    assert!(!is_broken_pipe_print(
        "failed printing to stdout: No space left on device (os error 28)"
    ));
    assert!(!is_broken_pipe_print("index out of bounds: Broken pipe"));
}
