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
