//! Build facts the environment fingerprint records: the rustc version and the
//! git commit the binary was built from (read from .git without running git).
//! And, for the tests only, what this machine lacks that some tests need
//! (docs/testing.md): such a test is marked ignored, so `cargo test` counts
//! it among the "ignored" instead of passing it without running it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=RC_RUSTC_VERSION={version}");
    println!(
        "cargo:rustc-env=RC_GIT_COMMIT={}",
        git_commit().unwrap_or_else(|| "unknown".into())
    );
    missing_test_needs();
}

/// Sets one cfg per outside thing some tests need and this machine lacks:
/// `rc_no_torch` (no Python that imports torch), `rc_no_kernel` (no
/// notebook Python with nbclient and ipykernel, unless
/// RESEARCH_COMPANION_REQUIRE_NOTEBOOK_KERNEL makes that a failure),
/// `rc_no_kernel_torch` (no notebook Python that imports torch too),
/// `rc_no_chromium`, `rc_no_hugo_theme`. Looked for where the tests look.
fn missing_test_needs() {
    let needs = [
        "rc_no_torch",
        "rc_no_kernel",
        "rc_no_kernel_torch",
        "rc_no_chromium",
        "rc_no_hugo_theme",
    ];
    for cfg in needs {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    for var in [
        "RESEARCH_COMPANION_TEST_PYTHON",
        "RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON",
        "RESEARCH_COMPANION_REQUIRE_NOTEBOOK_KERNEL",
        "RESEARCH_COMPANION_TEST_CHROMIUM",
        "RESEARCH_COMPANION_CHROMIUM",
        "RESEARCH_COMPANION_HUGO_BOOKKIT",
        "HUGO_VENV",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let python3 = PathBuf::from("python3");
    let torch = match var("RESEARCH_COMPANION_TEST_PYTHON") {
        Some(p) => vec![p],
        None => vec![python3.clone(), PathBuf::from("/tmp/torchenv/bin/python")],
    };
    if !torch.iter().any(|p| imports(p, "torch")) {
        println!("cargo::rustc-cfg=rc_no_torch");
    }
    let kernel = var("RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON").unwrap_or(python3.clone());
    let required = var("RESEARCH_COMPANION_REQUIRE_NOTEBOOK_KERNEL").is_some();
    if !required && !imports(&kernel, "nbclient, ipykernel") {
        println!("cargo::rustc-cfg=rc_no_kernel");
    }
    let kernel_torch = [
        "RESEARCH_COMPANION_TEST_NOTEBOOK_PYTHON",
        "RESEARCH_COMPANION_TEST_PYTHON",
    ]
    .iter()
    .filter_map(|n| var(n))
    .chain([python3])
    .any(|p| imports(&p, "nbclient, ipykernel, torch"));
    if !kernel_torch {
        println!("cargo::rustc-cfg=rc_no_kernel_torch");
    }
    let chromium = var("RESEARCH_COMPANION_TEST_CHROMIUM").unwrap_or(PathBuf::from("chromium"));
    let runs = Command::new(chromium)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        println!("cargo::rustc-cfg=rc_no_chromium");
    }
    if var("RESEARCH_COMPANION_HUGO_BOOKKIT").is_none() || var("HUGO_VENV").is_none() {
        println!("cargo::rustc-cfg=rc_no_hugo_theme");
    }
}

/// Whether `python` runs and imports `modules`.
fn imports(python: &Path, modules: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn git_commit() -> Option<String> {
    let git = Path::new(".git");
    println!("cargo:rerun-if-changed=.git/HEAD");
    let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(reference) = head.strip_prefix("ref: ") else {
        return Some(head.to_string());
    };
    println!("cargo:rerun-if-changed=.git/{reference}");
    println!("cargo:rerun-if-changed=.git/packed-refs");
    if let Ok(id) = std::fs::read_to_string(git.join(reference)) {
        return Some(id.trim().to_string());
    }
    let packed = std::fs::read_to_string(git.join("packed-refs")).ok()?;
    packed
        .lines()
        .find_map(|l| l.strip_suffix(reference).map(|id| id.trim().to_string()))
}
