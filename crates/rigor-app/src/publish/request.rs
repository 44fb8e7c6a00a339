//! `rigor track publish`'s request checked into [`PublishSettings`], and the publishing with its
//! error naming the site's folder.

use std::path::PathBuf;

use rigor_history::HistoryRead;
use rigor_report::dashboard::SiteMeta;

use super::{ARCHIVE_SIZE, Grouping, PublishSettings, Published, now, publish};
use crate::error::Result;
use crate::track::TrackError;

/// Everything `rigor track publish` takes.
#[derive(Debug, Clone)]
pub struct PublishRequest {
    /// The site's folder.
    pub out: PathBuf,
    /// The site's title.
    pub title: String,
    /// The repository's web address (`https://…`).
    pub repo_url: Option<String>,
    /// A pattern grouping the index (default: the name up to its last `/`).
    pub group: Option<String>,
    /// The rigor that publishes (shown on the pages).
    pub rigor_version: String,
    /// The metrics published (`--metric`): wall time always, and each other one on pages of its
    /// own.
    pub metrics: rigor_units::Metrics,
}

impl PublishRequest {
    /// Checks the repository's address and the grouping pattern; the site is generated now.
    pub fn resolve(self) -> Result<PublishSettings> {
        if let Some(url) = &self.repo_url {
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                return Err(TrackError::RepoUrl(url.clone()).into());
            }
        }
        let grouping = match self.group {
            Some(pattern) => match regex::Regex::new(&pattern) {
                Ok(re) => Grouping::Pattern(re),
                Err(source) => return Err(TrackError::Group { pattern, source }.into()),
            },
            None => Grouping::Prefix,
        };
        Ok(PublishSettings {
            out: self.out,
            site: SiteMeta {
                title: self.title,
                rigor_version: self.rigor_version,
                repo_url: self.repo_url,
            },
            generated: now(),
            archive_size: ARCHIVE_SIZE,
            grouping,
            metrics: self
                .metrics
                .0
                .into_iter()
                .filter(|m| !m.is_wall())
                .collect(),
        })
    }
}

/// [`publish`], its error naming the site's folder.
pub fn publish_site(history: &dyn HistoryRead, settings: &PublishSettings) -> Result<Published> {
    publish(history, settings).map_err(|e| {
        TrackError::Publish {
            out: settings.out.clone(),
            source: Box::new(e),
        }
        .into()
    })
}
