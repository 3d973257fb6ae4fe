//! The project handle: the layout and the chapter registry, opened once per
//! command and passed to every use-case, so nothing re-reads the registry or
//! rebuilds paths by hand.

use crate::chapter::Chapter;
use crate::chapter::registry::Registry;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::records::Record;
use crate::records::store::{self, BrokenRecord};

/// One project root: where its files live and which chapters it registers.
pub struct Project {
    layout: Layout,
    registry: Registry,
}

impl Project {
    /// Opens the project at `layout`'s root (listing chapters, parsing none).
    pub fn open(layout: Layout) -> Result<Self> {
        let registry = Registry::open(&layout)?;
        Ok(Project { layout, registry })
    }

    /// Where every file lives.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The registered chapters.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The chapter a query names (stable id, `book/chapter`, or a chapter id
    /// only one book uses), loaded.
    pub fn chapter(&self, query: &str) -> Result<Chapter> {
        self.registry.get(query)
    }

    /// The chapters a query names, or every registered one.
    pub fn chapters(&self, query: Option<&str>) -> Result<Vec<Chapter>> {
        match query {
            Some(q) => Ok(vec![self.chapter(q)?]),
            None => self
                .registry
                .require_keys()?
                .iter()
                .map(|k| self.registry.load(k))
                .collect(),
        }
    }

    /// Every registered chapter that loads, and one line for each that does
    /// not (the file and what is wrong): one broken chapter never hides the
    /// others.
    pub fn all_chapters(&self) -> Result<(Vec<Chapter>, Vec<String>)> {
        let mut good = Vec::new();
        let mut broken: Vec<String> = self
            .registry
            .misnamed()
            .iter()
            .map(|e| format!("a chapter folder is broken: {e}"))
            .collect();
        let keys = match self.registry.require_keys() {
            Err(_) if !broken.is_empty() => &[],
            other => other?,
        };
        for key in keys {
            match self.registry.load(key) {
                Ok(ch) => good.push(ch),
                Err(e) => broken.push(format!("{key} is broken: {e}")),
            }
        }
        Ok((good, broken))
    }

    /// The chapter a query names, or every registered one that loads; with
    /// the broken ones' reasons.
    pub fn chapters_or_all(&self, query: Option<&str>) -> Result<(Vec<Chapter>, Vec<String>)> {
        match query {
            Some(q) => Ok((vec![self.chapter(q)?], Vec::new())),
            None => self.all_chapters(),
        }
    }

    /// "The" chapter: the one named, or else the only one registered. With
    /// several registered and none named, the error lists them.
    pub fn the_chapter(&self, query: Option<&str>) -> Result<Chapter> {
        if let Some(q) = query {
            return self.chapter(q);
        }
        match self.registry.require_keys()? {
            [only] => self.registry.load(only),
            many => Err(Error::SeveralChapters {
                candidates: many.iter().map(|k| k.to_string()).collect(),
            }),
        }
    }

    /// A chapter's records that stand (retracted runs left out: no reader
    /// counts them as research or evidence), newest first, and the files
    /// that would not parse.
    pub fn records(&self, chapter: &Chapter) -> Result<(Vec<Record>, Vec<BrokenRecord>)> {
        let (mut records, broken) = store::list(&self.layout, &chapter.key)?;
        records.retain(|r| r.retraction.is_none());
        Ok((records, broken))
    }

    /// Every record of a chapter, retracted ones included and marked, for
    /// the views that show a history.
    pub fn records_with_retracted(
        &self,
        chapter: &Chapter,
    ) -> Result<(Vec<Record>, Vec<BrokenRecord>)> {
        store::list(&self.layout, &chapter.key)
    }
}
