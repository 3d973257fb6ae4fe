//! The environment fingerprint recorded with every run: what machine, kernel
//! and build produced the numbers. Identity fields are hashed into `env_id`;
//! build facts and volatile readings (load, free memory, clock speed) are kept
//! apart so the same machine gets the same id run after run.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::sys;
use crate::text::hex;

/// The whole fingerprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// SHA-256 over the identity fields only.
    pub env_id: String,
    pub identity: Identity,
    pub build: Build,
    pub volatile: Volatile,
}

/// Facts that identify the machine; they make up `env_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub os_name: String,
    pub os_version: String,
    pub kernel: String,
    pub arch: String,
    pub cpu_model: String,
    pub logical_cpus: usize,
    /// CPUs in the process's affinity mask when the fingerprint was taken.
    pub affinity_cpus: usize,
    /// cgroup CPU quota, e.g. `max` or `200000/100000`; None when unreadable.
    pub cgroup_cpu_quota: Option<String>,
    pub memory_bytes: u64,
    pub clocksource: Option<String>,
    pub timer_slack_ns: u64,
    /// docker, podman, lxc, kubernetes, ... when the process seems to run in one.
    pub container: Option<String>,
    /// SHA-256 of the host name (first 16 hex digits); the name itself is not kept.
    pub hostname_sha256: String,
}

/// How the tool itself was built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    pub tool_version: String,
    pub git_commit: String,
    /// `release` or `debug`.
    pub profile: String,
    pub rustc: String,
}

/// Readings that change from minute to minute; not part of `env_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Volatile {
    pub load_average: Option<[f64; 3]>,
    pub memory_available_bytes: Option<u64>,
    pub cpu_mhz: Option<f64>,
}

/// Whether this binary was built without optimizations.
pub fn is_debug_build() -> bool {
    cfg!(debug_assertions)
}

/// Takes the fingerprint of this machine and build now.
pub fn collect() -> Environment {
    let os = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let os_field = |key: &str| {
        os.lines()
            .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .map(|v| v.trim_matches('"').to_string())
    };
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let identity = Identity {
        os_name: os_field("PRETTY_NAME")
            .or_else(|| os_field("NAME"))
            .unwrap_or_else(|| std::env::consts::OS.into()),
        os_version: os_field("VERSION_ID").unwrap_or_else(|| "unknown".into()),
        kernel: sys::kernel_release(),
        arch: std::env::consts::ARCH.into(),
        cpu_model: cpuinfo
            .lines()
            .find_map(|l| {
                l.strip_prefix("model name")
                    .and_then(|v| v.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into()),
        logical_cpus: sys::online_cpus(),
        affinity_cpus: sys::affinity().map(|a| a.len()).unwrap_or(0),
        cgroup_cpu_quota: cgroup_quota(),
        memory_bytes: meminfo_kib(&meminfo, "MemTotal:").unwrap_or(0) * 1024,
        clocksource: read_trim("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        timer_slack_ns: sys::timer_slack(),
        container: container_hint(),
        hostname_sha256: hex(&Sha256::digest(sys::hostname().as_bytes()))[..16].to_string(),
    };
    let build = Build {
        tool_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: env!("RC_GIT_COMMIT").into(),
        profile: if is_debug_build() { "debug" } else { "release" }.into(),
        rustc: env!("RC_RUSTC_VERSION").into(),
    };
    let load_average = read_trim("/proc/loadavg").and_then(|l| {
        let v: Vec<f64> = l
            .split_whitespace()
            .take(3)
            .filter_map(|x| x.parse().ok())
            .collect();
        (v.len() == 3).then(|| [v[0], v[1], v[2]])
    });
    let mhz: Vec<f64> = cpuinfo
        .lines()
        .filter_map(|l| {
            l.strip_prefix("cpu MHz")
                .and_then(|v| v.split_once(':'))
                .and_then(|(_, v)| v.trim().parse().ok())
        })
        .collect();
    let volatile = Volatile {
        load_average,
        memory_available_bytes: meminfo_kib(&meminfo, "MemAvailable:").map(|k| k * 1024),
        cpu_mhz: (!mhz.is_empty()).then(|| mhz.iter().sum::<f64>() / mhz.len() as f64),
    };
    Environment {
        env_id: env_id(&identity),
        identity,
        build,
        volatile,
    }
}

/// SHA-256 over the identity fields (their JSON form, in declaration order).
pub fn env_id(identity: &Identity) -> String {
    let json = serde_json::to_string(identity).expect("identity serializes");
    hex(&Sha256::digest(json.as_bytes()))
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn meminfo_kib(meminfo: &str, key: &str) -> Option<u64> {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

fn cgroup_quota() -> Option<String> {
    if let Some(v2) = read_trim("/sys/fs/cgroup/cpu.max") {
        return Some(v2.replace(' ', "/"));
    }
    let quota = read_trim("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")?;
    let period = read_trim("/sys/fs/cgroup/cpu/cpu.cfs_period_us")?;
    Some(if quota == "-1" {
        "max".into()
    } else {
        format!("{quota}/{period}")
    })
}

fn container_hint() -> Option<String> {
    if std::path::Path::new("/.dockerenv").exists() {
        return Some("docker".into());
    }
    if std::path::Path::new("/run/.containerenv").exists() {
        return Some("podman".into());
    }
    if let Ok(c) = std::env::var("container")
        && !c.is_empty()
    {
        return Some(c);
    }
    let cgroup = std::fs::read_to_string("/proc/1/cgroup").unwrap_or_default();
    for (needle, name) in [
        ("kubepods", "kubernetes"),
        ("docker", "docker"),
        ("lxc", "lxc"),
        ("containerd", "containerd"),
    ] {
        if cgroup.contains(needle) {
            return Some(name.into());
        }
    }
    None
}

/// The quota as a number of CPUs, e.g. `200000/100000` -> 2.0.
pub fn quota_cpus(quota: &str) -> Option<f64> {
    let (q, p) = quota.split_once('/')?;
    Some(q.parse::<f64>().ok()? / p.parse::<f64>().ok()?)
}

/// The table `env` prints, laid out like the chapter's "The environment these
/// numbers came from".
pub fn render_table(env: &Environment) -> String {
    let i = &env.identity;
    let b = &env.build;
    let v = &env.volatile;
    let mut s = String::from("The environment these numbers came from\n");
    let mut row = |k: &str, val: String| {
        let _ = writeln!(s, "  {k:<14}{val}");
    };
    row("env_id", crate::text::prefix(&env.env_id, 16).to_string());
    row("OS", format!("{} (version {})", i.os_name, i.os_version));
    row("kernel", i.kernel.clone());
    row("arch", i.arch.clone());
    row("CPU", i.cpu_model.clone());
    row(
        "CPUs",
        format!(
            "{} logical, {} in the affinity mask",
            i.logical_cpus, i.affinity_cpus
        ),
    );
    let quota = match i.cgroup_cpu_quota.as_deref() {
        None => "unknown".to_string(),
        Some(q) => match quota_cpus(q) {
            Some(n) => format!("{q} ({n:.2} CPUs)"),
            None => format!("{q} (no limit)"),
        },
    };
    row("cgroup quota", quota);
    row(
        "memory",
        format!("{:.1} GiB", i.memory_bytes as f64 / (1u64 << 30) as f64),
    );
    row(
        "clocksource",
        i.clocksource.clone().unwrap_or_else(|| "unknown".into()),
    );
    row(
        "timer slack",
        format!("{} ns (benchmark runs set their own)", i.timer_slack_ns),
    );
    row(
        "container",
        i.container
            .clone()
            .unwrap_or_else(|| "none detected".into()),
    );
    row(
        "host",
        format!("sha256 {} (the name itself is not kept)", i.hostname_sha256),
    );
    row(
        "tool",
        format!(
            "research_companion {} ({} build, commit {})",
            b.tool_version,
            b.profile,
            crate::text::prefix(&b.git_commit, 12)
        ),
    );
    row("rustc", b.rustc.clone());
    s.push_str("Volatile readings (not part of env_id)\n");
    let mut row = |k: &str, val: String| {
        let _ = writeln!(s, "  {k:<14}{val}");
    };
    row(
        "load average",
        v.load_average
            .map(|l| format!("{:.2} {:.2} {:.2}", l[0], l[1], l[2]))
            .unwrap_or_else(|| "unknown".into()),
    );
    row(
        "mem available",
        v.memory_available_bytes
            .map(|m| format!("{:.1} GiB", m as f64 / (1u64 << 30) as f64))
            .unwrap_or_else(|| "unknown".into()),
    );
    row(
        "CPU MHz",
        v.cpu_mhz
            .map(|m| format!("{m:.0}"))
            .unwrap_or_else(|| "unknown".into()),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_id_ignores_volatile_readings_and_build() {
        let mut a = collect();
        let id = a.env_id.clone();
        a.volatile.load_average = Some([9.0, 9.0, 9.0]);
        a.build.git_commit = "different".into();
        assert_eq!(env_id(&a.identity), id);
        a.identity.cpu_model.push('x');
        assert_ne!(env_id(&a.identity), id);
        // Two collections on the same machine agree.
        assert_eq!(collect().env_id, id);
    }

    #[test]
    fn quota_parses() {
        assert_eq!(quota_cpus("200000/100000"), Some(2.0));
        assert_eq!(quota_cpus("max/100000"), None);
    }
}
