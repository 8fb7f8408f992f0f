//! `mdbook-gpulab install` on a book as `mdbook init` makes it: the preprocessor runs, the built
//! page links the stylesheet and the stylesheet is served; a second install changes nothing.

use snapbox::cmd::{Command, cargo_bin};
use std::fs;
use std::path::Path;

fn bin() -> Command {
    Command::new(cargo_bin!("mdbook-gpulab"))
}

/// What `mdbook init --force` (no .gitignore, default title) writes.
fn mdbook_init(root: &Path) {
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("book.toml"),
        "[book]\nauthors = []\nlanguage = \"en\"\nsrc = \"src\"\ntitle = \"My course\"\n",
    )
    .unwrap();
    fs::write(
        root.join("src/SUMMARY.md"),
        "# Summary\n\n- [Chapter 1](./chapter_1.md)\n",
    )
    .unwrap();
    fs::write(
        root.join("src/chapter_1.md"),
        "# Chapter 1\n\n```gpulab-status\n```\n",
    )
    .unwrap();
}

#[test]
fn install_sets_up_a_fresh_mdbook_init_book_whose_built_page_is_styled() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("course");
    mdbook_init(&root);

    let out = bin().arg("install").arg(&root).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("added [preprocessor.gpulab]"), "{stderr}");
    assert!(root.join("kernels").is_dir() && root.join("data").is_dir());
    // New-user audit (session 13): git records no empty folder, so the new ones hold a `.gitkeep`.
    assert!(root.join("kernels/.gitkeep").is_file() && root.join("data/.gitkeep").is_file());
    let toml_after = fs::read_to_string(root.join("book.toml")).unwrap();

    // Idempotent: nothing changes the second time.
    let again = bin().arg("install").arg(&root).assert().success();
    let stderr = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(stderr.contains("already set up"), "{stderr}");
    assert_eq!(
        fs::read_to_string(root.join("book.toml")).unwrap(),
        toml_after
    );

    bin()
        .args(["build", "--mode", "recorded"])
        .arg(&root)
        .assert()
        .success();
    let page = fs::read_to_string(root.join("book/chapter_1.html")).unwrap();
    assert!(
        page.contains("class=\"gpulab"),
        "the preprocessor ran:\n{page}"
    );
    // mdBook 0.5 serves it under a content hash: theme/gpulab-<hash>.css.
    let href = page
        .split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .find(|h| h.starts_with("theme/gpulab") && h.ends_with(".css"))
        .unwrap_or_else(|| panic!("the page links no theme/gpulab*.css:\n{page}"));
    let served = fs::read_to_string(root.join("book").join(href))
        .unwrap_or_else(|e| panic!("{href} is linked but not served: {e}"));
    assert_eq!(
        served,
        fs::read_to_string(root.join("theme/gpulab.css")).unwrap()
    );
    assert!(served.contains(".gpulab-status"), "the gpulab stylesheet");
}

#[test]
fn this_repositorys_stylesheet_is_the_installed_one() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("copy");
    mdbook_init(&root);
    bin().arg("install").arg(&root).assert().success();
    assert!(
        fs::read_to_string(repo.join("theme/gpulab.css")).unwrap()
            == fs::read_to_string(root.join("theme/gpulab.css")).unwrap(),
        "theme/gpulab.css differs from the built-in stylesheet (it should be a symlink to it)"
    );
    let book_toml = fs::read_to_string(repo.join("book.toml")).unwrap();
    assert!(
        book_toml.contains("additional-css = [\"theme/gpulab.css\"]"),
        "{book_toml}"
    );
}
