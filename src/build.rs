//! Build facts the environment fingerprint records: the rustc version and the
//! git commit the binary was built from (read from .git without running git).

use std::path::Path;
use std::process::Command;

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
