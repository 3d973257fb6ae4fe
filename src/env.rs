//! The environment fingerprint recorded with every run: what machine, kernel
//! and build produced the numbers. The identity facts are kept as read; the
//! id (`env-v2:...`) hashes only those that change the numbers, coarsened so
//! two machines of the same kind get the same id; build facts and volatile
//! readings (load, free memory, clock speed) are kept apart.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::sys;
use crate::text::format::hex;

/// The whole fingerprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// `env-v2:` and the SHA-256 of [`IdKey`]; records made before version
    /// 2 hold a bare hash of every identity field, which never equals a
    /// versioned id.
    pub env_id: String,
    pub identity: Identity,
    pub build: Build,
    pub volatile: Volatile,
}

/// Facts about the machine, as read; [`IdKey`] says which make up `env_id`.
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

/// The version of the environment id this tool writes.
pub const ENV_ID_VERSION: &str = "env-v2";

/// What goes into an `env-v2` id: the facts that would change the numbers,
/// coarsened so that machines of the same kind agree. Not in it: the OS name
/// and version, the host name, the timer slack (runs set their own), the
/// container's kind, the build and the volatile readings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdKey {
    pub cpu_model: String,
    pub arch: String,
    pub logical_cpus: usize,
    pub affinity_cpus: usize,
    /// The cgroup quota in CPUs to two decimals, `max` when unlimited, or
    /// `unknown`.
    pub cgroup_cpus: String,
    /// Total memory rounded to the nearest GiB.
    pub memory_gib: u64,
    /// The kernel release up to its first non-numeric part: `6.18.44` of
    /// `6.18.44-fc-v657`.
    pub kernel_release: String,
    pub clocksource: String,
    pub container: bool,
}

impl IdKey {
    pub fn of(identity: &Identity) -> IdKey {
        let i = identity;
        IdKey {
            cpu_model: i.cpu_model.clone(),
            arch: i.arch.clone(),
            logical_cpus: i.logical_cpus,
            affinity_cpus: i.affinity_cpus,
            cgroup_cpus: match i.cgroup_cpu_quota.as_deref() {
                None => "unknown".into(),
                Some(q) => quota_cpus(q).map_or_else(|| "max".into(), |n| format!("{n:.2}")),
            },
            memory_gib: (i.memory_bytes as f64 / (1u64 << 30) as f64).round() as u64,
            kernel_release: kernel_release(&i.kernel),
            clocksource: i.clocksource.clone().unwrap_or_else(|| "unknown".into()),
            container: i.container.is_some(),
        }
    }
}

/// `6.18.44` of `6.18.44-fc-v657`, `6.8.0` of `6.8.0-45-generic`, `6.1` of
/// `6.1-rc3`: the dotted numbers a kernel release starts with.
pub fn kernel_release(kernel: &str) -> String {
    let end = kernel
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(kernel.len());
    kernel[..end].trim_end_matches('.').to_string()
}

/// `env-v2:` and the SHA-256 of the identity's [`IdKey`] (its JSON form).
pub fn env_id(identity: &Identity) -> String {
    let json = serde_json::to_string(&IdKey::of(identity)).expect("the id key serializes");
    format!("{ENV_ID_VERSION}:{}", hex(&Sha256::digest(json.as_bytes())))
}

/// An id as tables show it: its version and 12 hex digits (an id from
/// before versions: 12 hex digits).
pub fn short_id(env_id: &str) -> String {
    // Ids come from records other machines wrote: shown, never obeyed.
    let short = match env_id.split_once(':') {
        Some((version, hash)) => format!("{version}:{}", crate::text::format::prefix(hash, 12)),
        None => crate::text::format::prefix(env_id, 12).to_string(),
    };
    crate::text::escape::visible(&short).into_owned()
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
    // Read from files (here, or in a record from another machine).
    let mut row = |k: &str, val: String| {
        let _ = writeln!(s, "  {k:<14}{}", crate::text::escape::visible(&val));
    };
    row("env_id", short_id(&env.env_id));
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
            crate::text::format::prefix(&b.git_commit, 12)
        ),
    );
    row("rustc", b.rustc.clone());
    s.push_str("Volatile readings (not part of env_id)\n");
    // Read from files (here, or in a record from another machine).
    let mut row = |k: &str, val: String| {
        let _ = writeln!(s, "  {k:<14}{}", crate::text::escape::visible(&val));
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
    fn machines_of_one_kind_share_an_id_and_other_kinds_do_not() {
        let a = collect();
        let mut b = a.clone();
        // Two fresh VMs of the same kind: a few KiB of memory, a kernel
        // build suffix, a host name, an OS point release apart.
        b.identity.memory_bytes = a.identity.memory_bytes - 8 * 1024;
        b.identity.kernel = format!("{}-other-build", kernel_release(&a.identity.kernel));
        b.identity.hostname_sha256 = "0123456789abcdef".into();
        b.identity.os_version.push_str(".1");
        assert_eq!(env_id(&b.identity), a.env_id);
        assert!(a.env_id.starts_with("env-v2:"), "{}", a.env_id);
        // What changes the numbers changes the id.
        for change in [
            &|i: &mut Identity| i.logical_cpus += 1,
            &|i: &mut Identity| i.affinity_cpus += 1,
            &|i: &mut Identity| i.memory_bytes += 2 << 30,
            &|i: &mut Identity| i.cpu_model.push('x'),
            &|i: &mut Identity| i.kernel = "1.2.3".into(),
            &|i: &mut Identity| i.clocksource = Some("hpet".into()),
            &|i: &mut Identity| i.cgroup_cpu_quota = Some("50000/100000".into()),
            &|i: &mut Identity| {
                i.container = match i.container {
                    Some(_) => None,
                    None => Some("docker".into()),
                }
            },
        ] as [&dyn Fn(&mut Identity); 8]
        {
            let mut c = a.identity.clone();
            change(&mut c);
            assert_ne!(env_id(&c), a.env_id, "{c:?}");
        }
    }

    #[test]
    fn kernel_releases_lose_their_local_suffix() {
        assert_eq!(kernel_release("6.18.44-fc-v657"), "6.18.44");
        assert_eq!(kernel_release("6.8.0-45-generic"), "6.8.0");
        assert_eq!(kernel_release("6.1-rc3"), "6.1");
        assert_eq!(kernel_release("5.15.0+"), "5.15.0");
        assert_eq!(
            short_id("env-v2:0123456789abcdef0123"),
            "env-v2:0123456789ab"
        );
        assert_eq!(short_id("9fb7d54d9078970c5c82"), "9fb7d54d9078");
    }

    #[test]
    fn quota_parses() {
        assert_eq!(quota_cpus("200000/100000"), Some(2.0));
        assert_eq!(quota_cpus("max/100000"), None);
    }
}
