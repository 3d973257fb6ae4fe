//! `diff`: a measured run against the chapter's published tables.

use crate::app::Project;
use crate::app::diff::{self, AcrossEnvironments};
use crate::app::runs::RunSource;
use crate::cli::DiffArgs;
use crate::error::{Error, Outcome, Result};
use crate::output::run_view::evidence_line;
use crate::output::{Colours, Out, Render, wrote};
use crate::published::diff::PublishedDiff;
use crate::published::{plot, render};

/// What `diff` found, as it prints it: the verdicts, the measured tables in
/// the chapter's layout, the cells when asked, the audit.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct DiffView<'a> {
    diff: &'a PublishedDiff,
    #[serde(skip)]
    run: &'a crate::bench::BenchRun,
    #[serde(skip)]
    cells: bool,
    /// Which recorded run this is, and the later ones passed over.
    #[serde(skip)]
    which: String,
}

impl Render for DiffView<'_> {
    fn text(&self) -> Result<String> {
        let mut s = self.which.clone();
        s.push_str(&evidence_line(self.run));
        s.push_str(&render::claims_text(self.diff, &Colours));
        s.push_str("\nMeasured, in the chapter's layout\n");
        s.push_str(&crate::bench::export::text(self.run, false));
        if self.cells {
            s.push_str(&render::cells_text(self.diff));
        }
        s.push_str(&render::audit_text(self.diff));
        Ok(s)
    }

    fn markdown(&self) -> Result<String> {
        Ok(render::markdown(self.diff))
    }
}

impl Render for AcrossEnvironments {
    fn text(&self) -> Result<String> {
        let mut s = format!(
            "{}: evidence from {} environment(s)\n",
            self.chapter,
            self.environments.len()
        );
        for e in &self.environments {
            s.push_str(&format!(
                "  env {} ({} CPUs): {} on {}\n",
                crate::text::escape::visible(&e.env_id),
                e.logical_cpus,
                e.run_id,
                e.recorded_at.format("%Y-%m-%d")
            ));
        }
        if !self.earlier_measurements.is_empty() {
            s.push_str(
                "earlier measurements, not compared with these (the tool changed, not only the machine):\n",
            );
            for e in &self.earlier_measurements {
                s.push_str(&format!(
                    "  env {} ({} CPUs): {} on {}: {}; {} of {} claims held then\n",
                    crate::text::escape::visible(&e.env_id),
                    e.logical_cpus,
                    e.run_id,
                    e.recorded_at.format("%Y-%m-%d"),
                    e.measurement,
                    e.held(),
                    e.verdicts.len()
                ));
            }
        }
        for c in &self.claims {
            s.push_str(&format!(
                "\n{}: {}\n",
                crate::text::escape::visible(&c.claim),
                c.summary_painted(&Colours)
            ));
            for (env, v) in &c.verdicts {
                s.push_str(&format!(
                    "  env {}: {}\n",
                    crate::text::escape::visible(env),
                    v.painted(&Colours)
                ));
            }
        }
        Ok(s)
    }
}

/// `diff --all-envs`
fn all_envs(out: &mut Out, project: &Project, args: &DiffArgs) -> Result<Outcome> {
    let across = diff::all_envs(project, args.chapter.as_deref())?;
    out.emit(&across, args.format.into())?;
    Ok(Outcome::check(!across.any_not_reproduced()))
}

/// `diff`
pub fn run(out: &mut Out, project: &Project, args: DiffArgs) -> Result<Outcome> {
    if args.all_envs {
        return all_envs(out, project, &args);
    }
    if let Some(file) = &args.run_file {
        refuse_a_chapter_for_a_file(project, file)?;
    }
    let source = match (&args.run_file, &args.run) {
        (Some(file), _) => RunSource::File(file),
        (None, Some(id)) => RunSource::Recorded(id),
        (None, None) => RunSource::Latest,
    };
    let found = diff::diff(project, source, args.chapter.as_deref()).map_err(|e| match e {
        Error::SeveralChapters { .. } => Error::Usage(format!("{e}; name one with --chapter")),
        Error::Id(crate::ids::IdError::Run { .. })
            if args.run.as_deref().is_some_and(looks_like_a_file) =>
        {
            Error::Usage(format!("{e}; a run file is given without --run: diff FILE"))
        }
        other => other,
    })?;
    let view = DiffView {
        diff: &found.diffed.diff,
        run: &found.run,
        cells: args.cells,
        which: which_run(&found),
    };
    out.emit(&view, args.format.into())?;
    if let Some(path) = &args.plot {
        plot::write(path, &found.diffed.tables, &found.run)?;
        wrote(path, "plot");
    }
    Ok(Outcome::check(!found.diffed.diff.any_not_reproduced()))
}

/// The recorded run a diff is of, in a line, and the later experiments
/// `--latest` passed over because they decided nothing (empty for a file).
fn which_run(found: &diff::DiffedRun) -> String {
    let Some(id) = &found.run_id else {
        return String::new();
    };
    let mut s = format!("Run {id}\n");
    if !found.passed_over.is_empty() {
        let ids: Vec<String> = found.passed_over.iter().map(|r| r.to_string()).collect();
        s.push_str(&format!(
            "  the latest that decided a claim: {} later experiment(s) decided nothing and are not counted: {}\n",
            ids.len(),
            ids.join(", ")
        ));
    }
    s
}

/// A chapter named where the run file goes (`diff 06`), when no such file
/// exists: says where a chapter is named instead.
fn refuse_a_chapter_for_a_file(project: &Project, file: &std::path::Path) -> Result<()> {
    let Some(name) = file.to_str() else {
        return Ok(());
    };
    if file.exists() || project.the_chapter(Some(name)).is_err() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "'{}' is a chapter, not a run file: name it with --chapter, as in diff --latest --chapter {0} or diff FILE --chapter {0}",
        crate::text::escape::visible(name)
    )))
}

/// Whether a `--run` value reads as a path rather than a run id.
fn looks_like_a_file(id: &str) -> bool {
    id.contains('/') || id.ends_with(".yaml") || std::path::Path::new(id).exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Record;

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/records/pytorch-from-first-principles/06")
            .join(name)
    }

    /// Text as a file or a pipe gets it: without colours.
    fn plain(text: String) -> String {
        anstream::adapter::strip_str(&text).to_string()
    }

    /// The verdicts a second environment recorded: every class and flag.
    const OTHER_VERDICTS: &str = "\
- claim: sleep-speedup-7.4x
  verdict: NOT_REPRODUCED
  measured: 1.01
  ratio: 0.138
- claim: spin-454-vs-449
  verdict: REPRODUCED
  measured: 0.99
  ratio: 1.0
  quote_missing: true
- claim: spin-wait-mean-62.8-to-28.1
  verdict: REPRODUCED
  measured: 0.003
  ratio: 0.007
  magnitude_differs: 0.007117437722419929
- claim: spin-wait-frac-0.89-to-0.39
  verdict: NOT_COMPARABLE
  measured: 0.5
  detail: needs 1 CPU(s), the run used 8
  ratio: 1.0
- claim: spin-work-7.8-to-43.2
  verdict: UNRUN
  detail: the run has no measurement for every table and worker count the metric reads
";

    /// The fixture experiment, and a later one on another machine (newest
    /// first, as the store lists them).
    fn two_environments() -> Vec<Record> {
        let older: Record =
            crate::yaml_io::read(&fixture("20261102T120000-bbbbbbbbbbbb.record.yaml")).unwrap();
        let mut newer = older.clone();
        newer.environment.env_id = "9f2c".repeat(16);
        newer.environment.identity.logical_cpus = 8;
        newer.recorded_at += chrono::Duration::days(1);
        newer.run_id =
            crate::ids::RunId::new(&older.run_id.chapter, newer.recorded_at, &"c".repeat(12));
        newer.experiment.as_mut().unwrap().verdicts = serde_yaml::from_str(OTHER_VERDICTS).unwrap();
        let mut records = vec![newer, older];
        for r in &mut records {
            r.experiment.as_mut().unwrap().measured_by = Some(crate::records::Measurement {
                engine: "embedded".into(),
                engine_model: Some(crate::bench::calibration::ENGINE_MODEL.into()),
                window: crate::bench::WindowKind::SteadyState,
            });
        }
        records
    }

    #[test]
    fn diff_prints_the_fixture_run_as_it_did() {
        let project = Project::open(crate::testing::repo_layout()).unwrap();
        let chapter = project.chapter("pytorch-from-first-principles/06").unwrap();
        let run = crate::bench::BenchRun::load(&fixture("20261102T120000-bbbbbbbbbbbb.run.yaml"))
            .unwrap();
        let diffed =
            diff::diff_run(&project, &chapter, &chapter.state.current_snapshot, &run).unwrap();
        let view = DiffView {
            diff: &diffed.diff,
            run: &run,
            cells: false,
            which: String::new(),
        };
        insta::assert_snapshot!("diff_text", plain(view.text().unwrap()));
        insta::assert_snapshot!("diff_markdown", view.markdown().unwrap());
        insta::assert_snapshot!("diff_json", serde_json::to_string_pretty(&view).unwrap());
        insta::assert_snapshot!("diff_yaml", crate::yaml_io::to_string(&view).unwrap());
    }

    #[test]
    fn diff_all_envs_prints_as_it_did() {
        let view = AcrossEnvironments::of(
            "pytorch-from-first-principles/06".into(),
            &two_environments(),
        );
        insta::assert_snapshot!("all_envs_text", plain(view.text().unwrap()));
        insta::assert_snapshot!(
            "all_envs_json",
            serde_json::to_string_pretty(&view).unwrap()
        );
        // The other machine's run made before windows is shown apart, and
        // its NOT_REPRODUCED is not held against the chapter.
        let mut records = two_environments();
        records[0].experiment.as_mut().unwrap().measured_by = None;
        let view = AcrossEnvironments::of("pytorch-from-first-principles/06".into(), &records);
        assert_eq!(view.environments.len(), 1);
        assert!(!view.any_not_reproduced());
        let text = plain(view.text().unwrap());
        assert!(
            text.contains("earlier measurements, not compared with these"),
            "{text}"
        );
        assert!(
            text.contains("measured before windows: whole-run window; 2 of 5 claims held then"),
            "{text}"
        );
    }
}
