//! Where commands print (part of the command-line layer). [`Out`] is standard
//! output with errors that carry a name; [`Out::emit`] prints any value in
//! any format through one trait, [`Render`], so no command matches on a
//! format itself. A closed pipe (`| head`) ends the output quietly and never
//! changes what the command concluded. Verdicts are coloured where a text
//! renderer prints them, with [`Colours`]; nothing searches printed text.
//!
//! The files under `output/` are what more than one command shares, since
//! command files never import each other: what they print (`run_view`,
//! `run_comparison`, `stored`, `document`), how they run the engine on the
//! command line (`progress`), and the one table of which flag fixes a typed
//! error (`flags`).

pub mod document;
pub mod flags;
pub mod progress;
mod run_comparison;
pub mod run_view;
pub mod stored;

use std::io::Write;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::published::verdict::{Paint, Tone};

/// Every output format a command may offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned, readable text.
    Text,
    Json,
    Yaml,
    Markdown,
    Csv,
}

/// A value a command prints. JSON and YAML come from its serialization; text
/// is its own; Markdown and CSV where the value has them.
pub trait Render: Serialize {
    /// The value as readable text, ending in a newline.
    fn text(&self) -> Result<String>;

    /// The value as Markdown.
    fn markdown(&self) -> Result<String> {
        Err(Error::Usage("this output has no Markdown form".into()))
    }

    /// The value as CSV.
    fn csv(&self) -> Result<String> {
        Err(Error::Usage("this output has no CSV form".into()))
    }
}

/// Standard output, locked, with errors mapped to [`Error::Io`]. Colours
/// pass through `anstream`, which drops them when standard output is not a
/// terminal or `NO_COLOR` is set.
pub struct Out {
    inner: Sink,
    /// Set once the reader went away; later writes are dropped.
    closed: bool,
}

/// Where an [`Out`] writes.
enum Sink {
    Stdout(anstream::AutoStream<std::io::StdoutLock<'static>>),
    /// Memory, colours dropped: what a pipe would get (see
    /// [`Out::in_memory`]).
    Memory(anstream::StripStream<Vec<u8>>),
}

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(b),
            Sink::Memory(m) => m.write(b),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::Memory(m) => m.flush(),
        }
    }
}

impl Default for Out {
    fn default() -> Self {
        Out {
            inner: Sink::Stdout(anstream::AutoStream::auto(std::io::stdout().lock())),
            closed: false,
        }
    }
}

/// Verdict and flag names in colour (green, yellow, red by their tone),
/// each still a word, so the meaning never rests on colour alone. Text
/// renderers for the terminal mark verdicts with it; [`Out`] drops the
/// colours when standard output is not a terminal or `NO_COLOR` is set.
#[derive(Debug, Clone, Copy, Default)]
pub struct Colours;

impl Paint for Colours {
    fn paint(&self, tone: Tone, word: &str) -> String {
        use anstyle::{AnsiColor, Style};
        let colour = match tone {
            Tone::Good => AnsiColor::Green,
            Tone::Caution => AnsiColor::Yellow,
            Tone::Bad => AnsiColor::Red,
        };
        let style = Style::new().bold().fg_color(Some(colour.into()));
        format!("{style}{word}{style:#}")
    }
}

impl Out {
    /// Output kept in memory, without colours, as a pipe would get it: a
    /// command's bytes for a caller (or a test) to read back with
    /// [`Out::into_bytes`].
    pub fn in_memory() -> Self {
        Out {
            inner: Sink::Memory(anstream::StripStream::new(Vec::new())),
            closed: false,
        }
    }

    /// What an [`Out::in_memory`] was given (nothing for standard output).
    pub fn into_bytes(self) -> Vec<u8> {
        match self.inner {
            Sink::Memory(m) => m.into_inner(),
            Sink::Stdout(_) => Vec::new(),
        }
    }

    /// Writes raw bytes.
    pub fn bytes(&mut self, b: &[u8]) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.write_all(b) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other.map_err(|e| Error::io("<stdout>", e)),
        }
    }

    /// Writes a string.
    pub fn write(&mut self, s: &str) -> Result<()> {
        self.bytes(s.as_bytes())
    }

    /// Writes a line.
    pub fn line(&mut self, s: impl AsRef<str>) -> Result<()> {
        self.write(s.as_ref())?;
        self.write("\n")
    }

    /// Prints `value` in `format`.
    pub fn emit<T: Render + ?Sized>(&mut self, value: &T, format: Format) -> Result<()> {
        let text = match format {
            Format::Text => value.text()?,
            Format::Markdown => value.markdown()?,
            Format::Csv => value.csv()?,
            Format::Json => {
                let mut s = serde_json::to_string_pretty(value)
                    .map_err(|e| Error::Other(format!("cannot write JSON: {e}")))?;
                s.push('\n');
                s
            }
            Format::Yaml => crate::yaml_io::to_string(value)?,
        };
        self.write(&text)
    }

    /// Flushes.
    pub fn flush(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other.map_err(|e| Error::io("<stdout>", e)),
        }
    }
}

/// A slice of values prints as their texts one after another.
impl<T: Render> Render for [T] {
    fn text(&self) -> Result<String> {
        self.iter().map(Render::text).collect()
    }
}

impl<T: Render> Render for Vec<T> {
    fn text(&self) -> Result<String> {
        self.as_slice().text()
    }
}

/// Prints a warning or a partial failure on standard error, in the one shape
/// every command uses.
pub fn warn(message: impl std::fmt::Display) {
    eprintln!(
        "research_companion: warning: {}",
        crate::text::escape::visible(&message.to_string())
    );
}

/// Refuses an output path that exists before any work starts.
pub fn refuse_existing(path: Option<&std::path::Path>) -> Result<()> {
    match path {
        Some(p) if p.exists() => Err(Error::WouldOverwrite {
            path: p.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Says on standard error that a file was written.
pub fn wrote(path: &std::path::Path, what: &str) {
    eprintln!("{what} written to {}", path.display());
}

/// One word for a stored snapshot's integrity.
pub fn integrity_word(i: crate::chapter::Integrity) -> &'static str {
    use crate::chapter::Integrity;
    match i {
        Integrity::Intact => "intact",
        Integrity::Altered => "ALTERED",
        Integrity::Missing => "MISSING",
        Integrity::Unreadable => "UNREADABLE",
    }
}

/// A short phrase for how the current snapshot compares with the published
/// fingerprint.
pub fn currency_phrase(c: crate::chapter::SnapshotCurrency) -> &'static str {
    use crate::chapter::SnapshotCurrency;
    match c {
        SnapshotCurrency::Matches => "matches the published fingerprint",
        SnapshotCurrency::ExcerptCannotMatch => {
            "an excerpt, so it cannot match the published fingerprint"
        }
        SnapshotCurrency::Differs => "DIFFERS from the published fingerprint",
        SnapshotCurrency::NotPublished => "no published fingerprint: currency cannot be checked",
    }
}

#[cfg(test)]
mod tests {
    use super::Colours;
    use crate::published::verdict::{ClaimVerdict, FlaggedVerdict, VerdictFlag};

    #[test]
    fn verdicts_are_coloured_by_their_tone_and_stay_words() {
        let v = FlaggedVerdict {
            class: ClaimVerdict::NotReproduced,
            flags: vec![VerdictFlag::QuoteMissing],
        };
        let text = v.painted(&Colours);
        assert!(
            text.contains("\u{1b}[1m\u{1b}[31mNOT_REPRODUCED\u{1b}[0m"),
            "{text:?}"
        );
        let v = FlaggedVerdict {
            class: ClaimVerdict::Reproduced,
            flags: vec![VerdictFlag::MagnitudeDiffers(2.0)],
        };
        let text = v.painted(&Colours);
        assert!(text.contains("\u{1b}[32mREPRODUCED\u{1b}[0m,"), "{text:?}");
        assert!(
            text.contains("\u{1b}[33mmagnitude differs\u{1b}[0m (x2.00)"),
            "{text:?}"
        );
        // Without the escapes, the words are all there.
        let plain: String = anstream::adapter::strip_str(&text).to_string();
        assert_eq!(plain, v.to_string());
        assert_eq!(plain, "REPRODUCED, magnitude differs (x2.00)");
    }
}
