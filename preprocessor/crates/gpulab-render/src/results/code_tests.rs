//! Tests of `code`.

use super::lexical;
use std::path::Path;

#[test]
fn a_shared_source_named_through_its_parent_folder_is_the_same_file() {
    assert_eq!(
        lexical(Path::new("/b/kernels/transpose/../coalescing/./copy.cu")),
        Path::new("/b/kernels/coalescing/copy.cu")
    );
    assert_eq!(lexical(Path::new("../k/a.cu")), Path::new("../k/a.cu"));
}

/// Built from `.` (`mdbook-gpulab build`), the page named `kernels/kernels/…/experiment.toml`:
/// the experiment's folder, `./kernels/…`, was not resolved like the file's path.
#[test]
fn a_file_is_named_from_the_kernels_folder_when_the_book_is_built_from_dot() {
    let dir = Path::new("./kernels/matmul");
    let file = lexical(&dir.join("experiment.toml"));
    assert_eq!(
        super::shown_name(dir, &file),
        "kernels/matmul/experiment.toml"
    );
    let shared = lexical(&dir.join("../coalescing/copy.cu"));
    assert_eq!(
        super::shown_name(dir, &shared),
        "kernels/coalescing/copy.cu"
    );
}
