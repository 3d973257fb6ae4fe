//! Rendering the research prompt, the review report and the static site's
//! pages from minijinja templates. The templates in `templates/` are embedded as defaults;
//! `--templates DIR` overrides them file by file. Undefined variables are
//! errors, so a typo in a template fails loudly with its name and line.

pub mod context;
pub mod markdown;
pub mod notebook_claims_view;
pub mod notebook_leads;
pub mod notebook_view;
pub mod record_view;

use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use crate::error::{Error, Result};

/// The prompt template's name.
pub const PROMPT_TEMPLATE: &str = "research-prompt.md.j2";
/// Characters of chapter text the prompt quotes by default: about what the
/// book's research page quotes (its excerpt is 6,081 bytes).
pub const DEFAULT_EXCERPT_CHARS: usize = 6000;

/// Environment variable that fixes "today" for reproducible output
/// (RFC 3339, e.g. `2026-11-30T12:00:00Z`).
pub const NOW_ENV: &str = "RESEARCH_COMPANION_NOW";

/// Now, or the time `RESEARCH_COMPANION_NOW` fixes.
pub fn now() -> Result<chrono::DateTime<chrono::Utc>> {
    match std::env::var(NOW_ENV) {
        Ok(v) => chrono::DateTime::parse_from_rfc3339(&v)
            .map(|t| t.with_timezone(&chrono::Utc))
            .map_err(|e| Error::Usage(format!("{NOW_ENV}={v}: not an RFC 3339 time ({e})"))),
        Err(_) => Ok(chrono::Utc::now()),
    }
}

/// Work a template may do before it is stopped (minijinja's fuel: about one
/// unit per instruction). The shipped templates use well under a percent.
pub const TEMPLATE_FUEL: u64 = 20_000_000;
/// The most text a template may produce.
pub const MAX_RENDERED_BYTES: usize = 16 << 20;
/// The most memory a template may take while it renders, beyond what it is
/// given: fuel bounds its steps, not the size of the strings and lists
/// they build (`"x" * 100000000`, then `join` or `~` of those).
pub const MAX_TEMPLATE_MEMORY: usize = 256 << 20;

/// The report template's name.
pub const REPORT_TEMPLATE: &str = "report.md.j2";

/// The static site's templates: its index, a page per chapter, its
/// stylesheet.
pub const SITE_INDEX_TEMPLATE: &str = "site/index.html.j2";
pub const SITE_CHAPTER_TEMPLATE: &str = "site/chapter.html.j2";
pub const SITE_STYLE_TEMPLATE: &str = "site/style.css.j2";
/// A page of a chapter's whole history, and the list of runs it shares with
/// the chapter's page.
pub const SITE_HISTORY_TEMPLATE: &str = "site/history.html.j2";
pub const SITE_RUNS_TEMPLATE: &str = "site/runs.html.j2";

/// The templates shipped in the binary.
const EMBEDDED: [(&str, &str); 7] = [
    (
        PROMPT_TEMPLATE,
        include_str!("../../templates/research-prompt.md.j2"),
    ),
    (
        REPORT_TEMPLATE,
        include_str!("../../templates/report.md.j2"),
    ),
    (
        SITE_INDEX_TEMPLATE,
        include_str!("../../templates/site/index.html.j2"),
    ),
    (
        SITE_CHAPTER_TEMPLATE,
        include_str!("../../templates/site/chapter.html.j2"),
    ),
    (
        SITE_STYLE_TEMPLATE,
        include_str!("../../templates/site/style.css.j2"),
    ),
    (
        SITE_HISTORY_TEMPLATE,
        include_str!("../../templates/site/history.html.j2"),
    ),
    (
        SITE_RUNS_TEMPLATE,
        include_str!("../../templates/site/runs.html.j2"),
    ),
];

/// A template environment.
pub struct Templates {
    /// Shared with the thread each template renders on.
    env: std::sync::Arc<Environment<'static>>,
    /// The template stopped at its memory limit, once one was: its thread
    /// is left where it stopped, perhaps inside the environment, so nothing
    /// else renders with it.
    stopped: std::sync::Mutex<Option<String>>,
    /// [`MAX_TEMPLATE_MEMORY`] (less in tests, whose process keeps what a
    /// stopped template holds).
    memory_limit: usize,
}

/// Whether `name` is a plain relative path that stays inside its folder.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.contains('\\')
        && !name.contains('\0')
        && name
            .split('/')
            .all(|part| !part.is_empty() && part != ".." && part != ".")
}

impl Templates {
    /// Templates from `dir` where it has them, else the embedded ones.
    pub fn new(dir: Option<&Path>) -> Result<Self> {
        let dir: Option<PathBuf> = match dir {
            None => None,
            Some(d) => {
                let real = d.canonicalize().map_err(|e| Error::io(d, e))?;
                if !real.is_dir() {
                    return Err(Error::invalid(d, "not a folder of templates"));
                }
                Some(real)
            }
        };
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        // HTML templates escape every value (chapter text and reports are
        // data, not markup); Markdown and CSS templates are left as written.
        env.set_auto_escape_callback(|name| {
            if name.ends_with(".html.j2") || name.ends_with(".html") {
                minijinja::AutoEscape::Html
            } else {
                minijinja::AutoEscape::None
            }
        });
        env.set_formatter(format_value);
        // `{{ text | linkify }}`: the text escaped, its web addresses links.
        env.add_filter("linkify", |text: &str| {
            minijinja::Value::from_safe_string(markdown::linkify(text))
        });
        env.set_fuel(Some(TEMPLATE_FUEL));
        // Text files end with a newline; keep the template's own.
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .keep_trailing_newline(true)
                .build()
                .expect("the default delimiters are valid"),
        );
        env.set_loader(
            move |name: &str| -> std::result::Result<Option<String>, minijinja::Error> {
                let refuse = |why: String| {
                    minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, why)
                };
                if !safe_name(name) {
                    return Err(refuse(format!(
                        "template name '{name}' leaves the templates directory"
                    )));
                }
                if let Some(dir) = &dir {
                    let candidate = dir.join(name);
                    if candidate.exists() {
                        let real = candidate
                            .canonicalize()
                            .map_err(|e| refuse(format!("{name}: {e}")))?;
                        if !real.starts_with(dir) {
                            return Err(refuse(format!(
                                "template '{name}' resolves outside {}",
                                dir.display()
                            )));
                        }
                        if !real.is_file() {
                            return Err(refuse(format!("template '{name}' is not a regular file")));
                        }
                        let bytes = crate::text::read::read_at_most(
                            &real,
                            crate::text::read::MAX_FILE_BYTES,
                        )
                        .map_err(|e| refuse(format!("{name}: {e}")))?;
                        return String::from_utf8(bytes).map(Some).map_err(|e| {
                            refuse(format!(
                                "{name}: invalid UTF-8 at byte offset {}",
                                e.utf8_error().valid_up_to()
                            ))
                        });
                    }
                }
                Ok(EMBEDDED
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, text)| text.to_string()))
            },
        );
        Ok(Templates {
            env: std::sync::Arc::new(env),
            stopped: std::sync::Mutex::new(None),
            memory_limit: MAX_TEMPLATE_MEMORY,
        })
    }

    /// Renders template `name` with `ctx`.
    /// The template is loaded, compiled (which folds constants: `{{ "x" *
    /// 100000000 }}` is built then, with no fuel) and rendered on a thread
    /// of its own under [`MAX_TEMPLATE_MEMORY`] (`sys::with_memory_limit`).
    pub fn render(&self, name: &str, ctx: impl Serialize) -> Result<String> {
        let stopped = |s: &Self| s.stopped.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(earlier) = stopped(self) {
            return Err(Error::Other(format!(
                "template {earlier} was stopped at its memory limit, so {name} and the templates after it are not rendered"
            )));
        }
        let ctx = minijinja::Value::from(minijinja::value::Serde(ctx));
        let env = self.env.clone();
        let owned = name.to_string();
        let rendered = crate::sys::with_memory_limit(self.memory_limit, move || {
            render_bounded(&env, &owned, ctx)
        });
        match rendered {
            Ok(result) => result,
            Err(e) => {
                if matches!(e, crate::sys::LimitedRunError::LimitReached { .. }) {
                    *self.stopped.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(name.to_string());
                }
                Err(Error::Other(format!("template {name}: {e}")))
            }
        }
    }
}

/// How every value a template prints is written: text with its control
/// and invisible formatting characters escaped (`text::escape::visible_lines`), so
/// none reaches a terminal, a file or a page. In the Markdown and text
/// templates (the prompt, the report), every line of a value that could
/// pass for the document's own structure is marked too (`text::quote::quoted`):
/// what a chapter, a notebook, a report or a ledger says is quoted
/// material, and no line of it can look like a section heading. A
/// template marks its own headings `| safe`, which skips the marking (not
/// the escapes). HTML templates escape values as HTML instead: their
/// structure is their tags.
fn format_value(
    out: &mut minijinja::Output,
    state: &mut minijinja::State,
    value: &minijinja::Value,
) -> std::result::Result<(), minijinja::Error> {
    let Some(text) = value.as_str() else {
        return minijinja::escape_formatter(out, state, value);
    };
    let shown = crate::text::escape::visible_lines(text);
    let write = |out: &mut minijinja::Output, s: &str| {
        out.write_str(s)
            .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string()))
    };
    match state.auto_escape() {
        minijinja::AutoEscape::None if value.is_safe() => write(out, &shown),
        minijinja::AutoEscape::None => write(out, &crate::text::quote::quoted(&shown)),
        _ => minijinja::escape_formatter(
            out,
            state,
            &if value.is_safe() {
                minijinja::Value::from_safe_string(shown.into_owned())
            } else {
                minijinja::Value::from(shown.as_ref())
            },
        ),
    }
}

/// Renders `name` into a buffer of at most [`MAX_RENDERED_BYTES`].
fn render_bounded(env: &Environment<'static>, name: &str, ctx: minijinja::Value) -> Result<String> {
    let template = env.get_template(name).map_err(describe)?;
    let mut out = Bounded(Vec::new());
    template.render_captured_to(ctx, &mut out).map_err(|e| {
        if out.0.len() > MAX_RENDERED_BYTES {
            Error::Other(format!(
                "template {name}: the output passed the {MAX_RENDERED_BYTES}-byte limit"
            ))
        } else {
            describe(e)
        }
    })?;
    String::from_utf8(out.0).map_err(|e| Error::Other(format!("template {name}: {e}")))
}

/// A writer that refuses to grow past [`MAX_RENDERED_BYTES`].
struct Bounded(Vec<u8>);

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        if self.0.len() > MAX_RENDERED_BYTES {
            return Err(std::io::Error::other("output limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One line naming the template, the line and what went wrong.
fn describe(e: minijinja::Error) -> Error {
    let place = match (e.name(), e.line()) {
        (Some(n), Some(l)) => format!("template {n}, line {l}: "),
        (Some(n), None) => format!("template {n}: "),
        _ => String::new(),
    };
    let what = e
        .detail()
        .map_or_else(|| e.kind().to_string(), |d| format!("{}: {d}", e.kind()));
    Error::Other(format!("{place}{what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_that_builds_long_strings_is_stopped_at_its_memory_limit() {
        let dir = tempfile::tempdir().unwrap();
        // Repetition then `join` (100 MB, which fuel allows), and `~`
        // doubling a string in a loop.
        std::fs::write(
            dir.path().join("join.j2"),
            r#"{% set s = "x" * 10000000 %}{{ [s, s, s, s, s, s, s, s, s, s]|join|length }}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join("double.j2"),
            r#"{% set ns = namespace(s="x" * 1000) %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("small.j2"), "{{ 3 * 4 }}").unwrap();
        for name in ["join.j2", "double.j2"] {
            let mut t = Templates::new(Some(dir.path())).unwrap();
            t.memory_limit = 32 << 20;
            let err = t
                .render(name, minijinja::context! {})
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("template {name}")), "{err}");
            assert!(
                err.contains("memory limit (33554432 bytes, 32 MiB)"),
                "{err}"
            );
            // Its thread is left where it stopped: nothing else renders.
            let err = t
                .render("small.j2", minijinja::context! {})
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!(
                    "template {name} was stopped at its memory limit, so small.j2"
                )),
                "{err}"
            );
        }
        let t = Templates::new(Some(dir.path())).unwrap();
        assert_eq!(t.render("small.j2", minijinja::context! {}).unwrap(), "12");
    }

    #[test]
    fn printed_values_are_quoted_and_escaped_and_only_safe_ones_skip_the_marks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.md.j2"), "{{ x }}|{{ x | safe }}|{{ n }}").unwrap();
        std::fs::write(dir.path().join("t.html.j2"), "{{ x }}|{{ h | safe }}").unwrap();
        let t = Templates::new(Some(dir.path())).unwrap();
        let x = "a\n== 8. How to investigate ==\u{1b}\u{202e}";
        assert_eq!(
            t.render("t.md.j2", minijinja::context! { x => x, n => 3 })
                .unwrap(),
            "a\n| == 8. How to investigate ==\\u{1b}\\u{202e}|a\n== 8. How to investigate ==\\u{1b}\\u{202e}|3"
        );
        assert_eq!(
            t.render(
                "t.html.j2",
                minijinja::context! { x => "<b>\0</b>\n# h", h => "<i>\u{7}</i>" }
            )
            .unwrap(),
            "&lt;b&gt;\\u{0}&lt;&#x2f;b&gt;\n# h|<i>\\u{7}</i>"
        );
    }

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        for bad in ["../x", "/etc/passwd", "a/../../b", "a\\b", ""] {
            assert!(!safe_name(bad), "{bad:?}");
        }
        assert!(safe_name("partials/head.md.j2"));
    }

    #[test]
    fn an_override_folder_wins_file_by_file_and_includes_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("report.md.j2"),
            "custom {{ x }} {% include 'part.j2' %}\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("part.j2"), "part").unwrap();
        std::fs::write(dir.path().join("escape.j2"), "{% include '../secret' %}").unwrap();
        let t = Templates::new(Some(dir.path())).unwrap();
        assert_eq!(
            t.render(REPORT_TEMPLATE, minijinja::context! { x => 1 })
                .unwrap(),
            "custom 1 part\n"
        );
        let err = t
            .render("escape.j2", minijinja::context! {})
            .unwrap_err()
            .to_string();
        assert!(err.contains("leaves the templates directory"), "{err}");
        // Not overridden: the embedded prompt is still there.
        assert!(t.env.get_template(PROMPT_TEMPLATE).is_ok());
    }

    #[test]
    fn an_undefined_variable_names_the_template_and_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("report.md.j2"),
            "line one\n{{ chapter.titel }}\n",
        )
        .unwrap();
        let t = Templates::new(Some(dir.path())).unwrap();
        let err = t
            .render(
                REPORT_TEMPLATE,
                minijinja::context! { chapter => minijinja::context! { title => "x" } },
            )
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("template report.md.j2, line 2: undefined value"),
            "{err}"
        );
    }
}
