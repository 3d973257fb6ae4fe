//! What several groups of commands share: the output formats of listings
//! and documents, and the range every numeric option is held to.

use clap::ValueEnum;
use clap::builder::{RangedU64ValueParser, TypedValueParser};

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
