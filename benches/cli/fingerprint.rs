//! `fingerprint` against `openssl dgst -sha256` of the same file, side by
//! side: four kinds of 64 MiB text, each round running every tool on every
//! file in turn (interleaved, so a burst of load on the shared machine
//! hits all of them alike). Prints per kind the median and spread of each
//! tool's wall time, the median and spread of the per-round ratio to
//! openssl, and the peak memory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::common::{
    Rng, builds, chapter_06_prose, load, mib, ms, peak_rss_kib, spread, time_once,
};

const SIZE: usize = 64 << 20;

/// Rounds of every tool on every file.
const ROUNDS: usize = 7;

/// Prose dense with references and accents: ordinary words with, in
/// most lines, an `&amp;`, an accented word and an em dash, and in some a
/// numeric or named reference, curly quotes or a no-break space.
fn dense(rng: &mut Rng) -> String {
    const WORDS: [&str; 12] = [
        "the", "loader", "waits", "for", "each", "batch", "while", "workers", "produce", "samples",
        "on", "time",
    ];
    const SPICE: [&str; 12] = [
        "&amp;",
        "café",
        "—",
        "naïve",
        "&amp;",
        "résumé",
        "—",
        "&eacute;t&eacute;",
        "&#8217;s",
        "“quoted”",
        "&nbsp;",
        "&mdash;",
    ];
    let mut text = String::with_capacity(SIZE + 4096);
    while text.len() < SIZE {
        let mut line: Vec<&str> = (0..12).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        for _ in 0..3 {
            if rng.below(10) < 8 {
                let at = rng.below(line.len());
                line.insert(at, SPICE[rng.below(SPICE.len())]);
            }
        }
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text
}

/// Ordinary English prose: ASCII words, with a curly apostrophe or an em
/// dash in about one line of three, paragraphs apart.
fn ordinary(rng: &mut Rng) -> String {
    const WORDS: [&str; 24] = [
        "the",
        "loader",
        "waits",
        "for",
        "each",
        "batch",
        "while",
        "workers",
        "produce",
        "samples",
        "in",
        "parallel,",
        "and",
        "the",
        "step",
        "runs",
        "on",
        "one",
        "core.",
        "It",
        "is",
        "a",
        "measured",
        "time",
    ];
    let mut text = String::with_capacity(SIZE + 4096);
    while text.len() < SIZE {
        let line = words_line(rng, &WORDS, 14);
        text.push_str(&line);
        match rng.below(9) {
            0 => text.push_str(" — the step’s own cost"),
            1 => text.push_str(" (it’s waiting)"),
            2 => text.push('\n'),
            _ => {}
        }
        text.push('\n');
    }
    text
}

fn words(rng: &mut Rng, pool: &[&str], per_line: usize) -> String {
    let mut text = String::with_capacity(SIZE + 4096);
    while text.len() < SIZE {
        text.push_str(&words_line(rng, pool, per_line));
        text.push('\n');
    }
    text
}

fn words_line(rng: &mut Rng, pool: &[&str], n: usize) -> String {
    let mut line = String::new();
    for k in 0..n {
        if k > 0 {
            line.push(' ');
        }
        line.push_str(pool[rng.below(pool.len())]);
    }
    line
}

fn repeated(piece: &str) -> String {
    let mut text = String::with_capacity(SIZE + piece.len());
    while text.len() < SIZE {
        text.push_str(piece);
    }
    text
}

fn plain_ascii(rng: &mut Rng) -> String {
    const WORDS: [&str; 10] = [
        "plain", "ascii", "text", "with", "single", "spaces", "and", "short", "lines", "only",
    ];
    words(rng, &WORDS, 12)
}

/// Names a folder to write the inputs to and keep them there (to profile
/// one by hand); otherwise they go in the bench's temporary folder.
const KEEP_ENV: &str = "RESEARCH_COMPANION_BENCH_KEEP_INPUTS";

pub fn run(dir: &Path) {
    let keep = std::env::var_os(KEEP_ENV).map(PathBuf::from);
    let dir = keep.as_deref().unwrap_or(dir);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut files: Vec<(&str, PathBuf)> = Vec::new();
    for (name, make) in [
        ("dense entities and accents", dense(&mut rng)),
        ("ordinary prose", ordinary(&mut rng)),
        ("chapter 06 repeated", repeated(&chapter_06_prose())),
        ("plain ASCII", plain_ascii(&mut rng)),
    ] {
        let path = dir.join(format!("fp-{}.txt", files.len()));
        // Written and dropped before any child starts: a forked child
        // counts its parent's resident pages in its own peak.
        std::fs::write(&path, make).unwrap();
        files.push((name, path));
    }
    let builds = builds();
    let cap = Duration::from_secs(120);
    // times[file][tool][round], tool 0 openssl, then each build.
    let mut times = vec![vec![Vec::new(); 1 + builds.len()]; files.len()];
    let load_before = load();
    for _ in 0..ROUNDS {
        for (f, (_, path)) in files.iter().enumerate() {
            let mut c = Command::new("openssl");
            c.args(["dgst", "-sha256"]).arg(path);
            times[f][0].push(time_once(c, cap).unwrap().as_secs_f64());
            for (b, (_, exe)) in builds.iter().enumerate() {
                let mut c = Command::new(exe);
                c.arg("fingerprint").arg(path);
                times[f][1 + b].push(time_once(c, cap).unwrap().as_secs_f64());
            }
        }
    }
    println!(
        "fingerprint, 64 MiB, {ROUNDS} interleaved rounds (load average {load_before} before, {} after):",
        load()
    );
    for (f, (name, path)) in files.iter().enumerate() {
        println!("  {name}: openssl {}", ms(&times[f][0]));
        for (b, (label, exe)) in builds.iter().enumerate() {
            let ratios: Vec<f64> = times[f][1 + b]
                .iter()
                .zip(&times[f][0])
                .map(|(ours, theirs)| ours / theirs)
                .collect();
            let (m, lo, hi) = spread(&ratios);
            let rss = peak_rss_kib(exe, &["fingerprint".as_ref(), path.as_os_str()]);
            println!(
                "    {label}: {}, {m:.2}x openssl ({lo:.2}-{hi:.2}), peak RSS {}",
                ms(&times[f][1 + b]),
                mib(rss)
            );
        }
    }
    if keep.is_none() {
        for (_, path) in files {
            let _ = std::fs::remove_file(path);
        }
    }
}
