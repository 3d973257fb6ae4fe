//! A project whose chapter 06 has the history of a long-lived book: by
//! default 10,000 records, about 6 in 10 experiments (each with its run
//! file), 3 in 10 research runs (each with its report) and 1 in 10
//! notebook runs, over three years, four revisions of the chapter and four
//! machines, a few of them retracted.
//!
//! The records are clones of real ones in `seed/`, each made by this tool:
//! `reproduce 06` (a run file of six rounds), `bench --record` (one run,
//! from tests/fixtures/records), `notebook run 06` and `record 06 --report`
//! (tests/fixtures/reports/review-06.md). A clone gets its own time, nonce,
//! revision, machine and predecessor; its evidence is rewritten to name that
//! machine, and everything the store derives from content is derived again
//! as `records::store::store` does it (the run id from the content hash,
//! the evidence named after the run id, the evidence's sha256), so every
//! record reads as valid and `status` reports no problem.
//!
//! The revisions are stored through the binary (`snapshot add`), and the
//! retractions through the store's own `retract`.

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{DateTime, Duration, TimeZone, Utc};
use research_companion::app::Project;
use research_companion::env::env_id;
use research_companion::ids::RunId;
use research_companion::layout::{Evidence, Layout};
use research_companion::records::{Record, Revision, store};
use sha2::{Digest, Sha256};

/// The seed records, beside this file.
fn seed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/long_lived_book/seed")
}

/// One seed: its record and its evidence's bytes.
struct Seed {
    record: Record,
    evidence: Vec<u8>,
    kind: Evidence,
}

fn seed(name: &str, suffix: &str, kind: Evidence) -> Seed {
    let dir = seed_dir();
    let record: Record =
        research_companion::yaml_io::read(&dir.join(format!("{name}.record.yaml"))).unwrap();
    let evidence = std::fs::read(dir.join(format!("{name}{suffix}"))).unwrap();
    Seed {
        record,
        evidence,
        kind,
    }
}

/// A small deterministic generator (xorshift), so every project is the same.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What was made, for the benchmark to print.
pub struct Book {
    pub root: PathBuf,
    pub records: usize,
    pub experiments: usize,
    pub research: usize,
    pub notebooks: usize,
    pub retracted: usize,
    pub revisions: usize,
    pub bytes: u64,
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The chapter's text, one paragraph added per revision.
fn add_revisions(root: &Path, count: usize) {
    let chapter = root
        .join("book-snapshots/pytorch-from-first-principles/06/snapshots/0001-a7d34947a6b4.txt");
    let mut text = std::fs::read_to_string(chapter).unwrap();
    for r in 2..=count {
        text.push_str(&format!(
            "\nRevision {r} adds a paragraph on pinned memory, as a long-lived chapter gains one now and then.\n"
        ));
        let file = root.join(format!("revision-{r}.txt"));
        std::fs::write(&file, &text).unwrap();
        let out = Command::new(super::exe())
            .args(["snapshot", "add", "06"])
            .arg(&file)
            .env("RESEARCH_COMPANION_ROOT", root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "snapshot add: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_file(file).unwrap();
    }
}

/// Writes the project into `root` (made if missing; must hold no project
/// yet): `book-snapshots/` from the fixtures and `n` records of chapter 06.
pub fn generate(root: &Path, n: usize) -> Book {
    assert!(
        !root.join("book-snapshots").exists(),
        "{} already holds a project",
        root.display()
    );
    std::fs::create_dir_all(root).unwrap();
    super::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/book-snapshots"),
        &root.join("book-snapshots"),
    );
    let revisions = 4;
    add_revisions(root, revisions);
    let layout = Layout::new(root);
    let project = Project::open(layout.clone()).unwrap();
    let chapter = project.chapter("06").unwrap();
    let snapshots: Vec<Revision> = chapter
        .state
        .snapshots
        .iter()
        .map(|s| Revision {
            snapshot: s.file.clone(),
            fingerprint: s.fingerprint.clone(),
            scope: s.scope,
        })
        .collect();
    let key = chapter.key.clone();
    let dir = layout.records_dir(&key);
    std::fs::create_dir_all(&dir).unwrap();

    let reproduce = seed("reproduce", ".run.yaml", Evidence::Run);
    let bench = seed("bench", ".run.yaml", Evidence::Run);
    let research = seed("research", ".report.md", Evidence::Report);
    let notebook = seed("notebook", ".notebook.yaml", Evidence::NotebookRun);

    // Four machines: the seed's, and three others a book's author or its
    // readers ran the chapter on.
    let machines: Vec<research_companion::env::Environment> = (0..4)
        .map(|m| {
            let mut env = reproduce.record.environment.clone();
            if m > 0 {
                env.identity.logical_cpus = 2 << m;
                env.identity.affinity_cpus = 2 << m;
                env.identity.cpu_model = format!("Generated CPU model {m} @ 3.{m}0GHz");
                env.identity.hostname_sha256 = format!("{m:016x}");
            }
            env.env_id = env_id(&env.identity);
            env
        })
        .collect();

    let mut rng = Rng(0x5eed_2026_0052);
    let start = Utc.with_ymd_and_hms(2023, 12, 1, 8, 0, 0).unwrap();
    let span_s = 3 * 365 * 24 * 3600_i64;
    let mut previous: [Option<RunId>; 3] = [None, None, None];
    let mut book = Book {
        root: root.to_path_buf(),
        records: n,
        experiments: 0,
        research: 0,
        notebooks: 0,
        retracted: 0,
        revisions,
        bytes: 0,
    };
    let mut written: Vec<Record> = Vec::with_capacity(n);
    for i in 0..n {
        let at: DateTime<Utc> = start
            + Duration::seconds(span_s * i as i64 / n as i64)
            + Duration::seconds(rng.below(3600) as i64)
            + Duration::nanoseconds(rng.below(1_000_000_000) as i64);
        let pick = rng.below(10);
        let (from, slot) = match pick {
            0..=5 => {
                book.experiments += 1;
                (if pick % 2 == 0 { &reproduce } else { &bench }, 0)
            }
            6..=8 => {
                book.research += 1;
                (&research, 1)
            }
            _ => {
                book.notebooks += 1;
                (&notebook, 2)
            }
        };
        // The chapter's revisions follow one another in time.
        let revision = snapshots[(i * snapshots.len() / n).min(snapshots.len() - 1)].clone();
        let machine = &machines[rng.below(machines.len() as u64) as usize];
        let mut record = from.record.clone();
        record.recorded_at = at;
        record.revision = revision;
        record.previous_run_id = previous[slot].clone();
        record.nonce = format!("{:016x}", rng.next());
        // A run file and a notebook run name the machine they ran on.
        let evidence = match from.kind {
            Evidence::Report => from.evidence.clone(),
            _ => String::from_utf8_lossy(&from.evidence)
                .replace(&record.environment.env_id, &machine.env_id)
                .into_bytes(),
        };
        record.environment = machine.clone();
        let sha = sha256_hex(&evidence);
        let bytes = evidence.len() as u64;
        if let Some(r) = record.report.as_mut() {
            r.file = String::new();
            r.sha256 = sha.clone();
            r.bytes = bytes;
        }
        if let Some(e) = record.experiment.as_mut() {
            e.file = String::new();
            e.sha256 = sha.clone();
        }
        if let Some(nb) = record.notebook.as_mut() {
            nb.file = String::new();
            nb.sha256 = sha.clone();
        }
        // As the store names a record: by time and content hash.
        let id = RunId::new(&key, at, &store::content_sha256(&record));
        let name = Layout::evidence_name(&id.stem(), from.kind);
        record.run_id = id.clone();
        if let Some(r) = record.report.as_mut() {
            r.file = name.clone();
        }
        if let Some(e) = record.experiment.as_mut() {
            e.file = name.clone();
        }
        if let Some(nb) = record.notebook.as_mut() {
            nb.file = name.clone();
        }
        std::fs::write(layout.evidence_file(&key, &name), &evidence).unwrap();
        let text = research_companion::yaml_io::to_string(&record).unwrap();
        std::fs::write(layout.record_file(&id), &text).unwrap();
        book.bytes += bytes + text.len() as u64;
        previous[slot] = Some(id);
        written.push(record);
    }
    // A few runs withdrawn, as an author does when a run was made wrong.
    for (k, record) in written.iter().enumerate().filter(|(k, _)| k % 499 == 17) {
        let when = record.recorded_at + Duration::hours(2);
        let reason =
            format!("run {k} was made with the laptop on battery; its numbers mean nothing");
        store::retract(&layout, record, &reason, when).unwrap();
        book.retracted += 1;
    }
    book
}
