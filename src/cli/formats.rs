//! What several groups of commands share: the output formats of listings
//! and documents, and the range every numeric option is held to.

use clap::builder::{RangedU64ValueParser, TypedValueParser};
use clap::{Args, ValueEnum};

use crate::output::Format;

/// The documented range of every numeric option (docs/commands.md, "Limits"); clap
/// refuses a value outside it before anything runs.
pub fn ranged<T>(lo: u64, hi: u64) -> impl TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: Send + Sync + 'static + std::error::Error + ToString,
{
    RangedU64ValueParser::<T>::new().range(lo..=hi)
}

/// `--timer-slack-ns`: 1 to `hi` ns. 0 is refused with its reason: the
/// kernel reads it as "back to the thread's default".
pub fn timer_slack(hi: u64) -> impl Fn(&str) -> Result<u64, String> + Clone {
    move |text| {
        let ns: u64 = text
            .parse()
            .map_err(|_| format!("expected a whole number of ns from 1 to {hi}"))?;
        match ns {
            0 => Err(crate::bench::settings::ZERO_TIMER_SLACK.into()),
            ns if ns > hi => Err(format!("{ns} is not in 1..={hi}")),
            ns => Ok(ns),
        }
    }
}

/// Output format for listings and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Text,
    Json,
    Yaml,
}

impl From<ListFormat> for Format {
    fn from(f: ListFormat) -> Format {
        match f {
            ListFormat::Text => Format::Text,
            ListFormat::Json => Format::Json,
            ListFormat::Yaml => Format::Yaml,
        }
    }
}

/// Output format of `prompt`, `report` and `reproduce`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocFormat {
    Text,
    Json,
}

impl From<DocFormat> for Format {
    fn from(f: DocFormat) -> Format {
        match f {
            DocFormat::Text => Format::Text,
            DocFormat::Json => Format::Json,
        }
    }
}

/// An http(s) address with a host, which `url` can read; credentials may be
/// in it (the tool strips them from whatever it writes or prints). A value
/// that is no such URL is refused, so it is never stored as it was typed.
pub fn http_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("needs an http:// or https:// address with a host".into());
    }
    Ok(text.to_string())
}

/// A title typed on the command line: one line, no control characters
/// (a line break would split the headings and lines it is printed in).
pub fn title_text(text: &str) -> Result<String, String> {
    match text.chars().find(|c| c.is_control()) {
        Some(c) => Err(format!(
            "holds the control character U+{:04X}; a title is one line of text",
            c as u32
        )),
        None if text.trim().is_empty() => Err("is empty".into()),
        None => Ok(text.to_string()),
    }
}

/// How far apart two runs' rows may be and still count as the same.
#[derive(Debug, Clone, Copy, Args)]
pub struct BandArgs {
    /// Rows count as the same while ex/s B/A (and wait, and work) is within
    /// 1/X..X, and the 95% interval over rounds is read against it (bench:
    /// with --engine both only) [default: 1.2]
    #[arg(long, value_name = "X", allow_negative_numbers = true, value_parser = ratio_band)]
    pub ratio_band: Option<f64>,
    /// Rows count as the same while wait_frac B-A is within ±D, and the 95%
    /// interval over rounds is read against it (bench: with --engine both
    /// only) [default: 0.1]
    #[arg(long, value_name = "D", allow_negative_numbers = true, value_parser = wait_frac_band)]
    pub wait_frac_band: Option<f64>,
}

impl BandArgs {
    /// Whether either band was given.
    pub fn given(&self) -> bool {
        self.ratio_band.is_some() || self.wait_frac_band.is_some()
    }

    /// The bands, the defaults where not given.
    pub fn bands(&self) -> crate::app::compare::Bands {
        let d = crate::app::compare::Bands::default();
        crate::app::compare::Bands {
            ratio: self.ratio_band.unwrap_or(d.ratio),
            wait_frac: self.wait_frac_band.unwrap_or(d.wait_frac),
        }
    }
}

/// `--ratio-band`: a ratio above 1 and at most 10.
fn ratio_band(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v <= 1.0 || v > 10.0 {
        return Err(format!(
            "must be a ratio above 1 and at most 10 (1.1 for within 10%), got {s}"
        ));
    }
    Ok(v)
}

/// `--wait-frac-band`: a difference of fractions above 0 and at most 1.
fn wait_frac_band(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v <= 0.0 || v > 1.0 {
        return Err(format!(
            "must be a difference of wait fractions above 0 and at most 1, got {s}"
        ));
    }
    Ok(v)
}
