//! Apache Otava's and asv's own change detection (their PyPI packages, which
//! `scripts/history_peers.py` installs) on series of version levels, for the studies that compare
//! rigor's detection with theirs ([`crate::history`], [`crate::sessions`]).

use std::path::Path;

/// A peer whose change detection the script runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// Apache Otava (`otava` in the script's output).
    Otava,
    /// asv's step detection (`asv`).
    Asv,
}

/// One change a peer reported in a series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerChange {
    /// The series' key, as given.
    pub key: String,
    /// Who reported it.
    pub peer: Peer,
    /// The first version after the change (its index in the series).
    pub index: usize,
}

/// Runs `script` (scripts/history_peers.py) on keyed series of levels (keys without commas),
/// in a temporary folder: the changes the peers report, in the script's order.
pub fn run_peers(series: &[(String, Vec<f64>)], script: &Path) -> Result<Vec<PeerChange>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (input, output) = (dir.path().join("levels.csv"), dir.path().join("found.csv"));
    let mut text = String::from("key,index,mean\n");
    for (key, levels) in series {
        for (i, v) in levels.iter().enumerate() {
            text.push_str(&format!("{key},{i},{v}\n"));
        }
    }
    std::fs::write(&input, text).map_err(|e| e.to_string())?;
    let status = std::process::Command::new("python3")
        .arg(script)
        .arg(&input)
        .arg(&output)
        .status()
        .map_err(|e| format!("python3: {e}"))?;
    if !status.success() {
        return Err(format!("{} failed ({status})", script.display()));
    }
    let found = std::fs::read_to_string(&output).map_err(|e| e.to_string())?;
    Ok(found
        .lines()
        .skip(1)
        .filter_map(|line| {
            let parts: Vec<&str> = line.split(',').collect();
            let [key, method, index] = parts[..] else {
                return None;
            };
            Some(PeerChange {
                key: key.to_string(),
                peer: if method == "otava" {
                    Peer::Otava
                } else {
                    Peer::Asv
                },
                index: index.parse().ok()?,
            })
        })
        .collect())
}
