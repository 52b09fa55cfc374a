//! The case manifest: what each criterion benchmark id measures, for `cargo xtask bench`.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// One measured case. `cargo xtask bench` joins these with criterion's
/// estimates by `id` (criterion's full benchmark id).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Case {
    /// Criterion's full id, `group/function`.
    pub id: String,
    /// `filter`, `peer` or `floor`.
    pub kind: String,
    /// The filter or peer crate, e.g. `Qht` or `fastbloom`.
    pub filter: String,
    /// Its parameters, e.g. `k=4 s=8`.
    pub config: String,
    /// `L2` (1 Mbit) or `DRAM` (64 MiB).
    pub size: String,
    /// The state as the filter counts it (`memory_bits`).
    pub memory_bits: u64,
    /// `u64` or `str40`.
    pub key: String,
    /// `sip13` or `foldhash`.
    pub hash: String,
    /// `distinct` or `dup50`.
    pub stream: String,
    /// `one` or `batch`.
    pub path: String,
    /// Random cache lines an operation touches (the floor's model).
    pub lines: u32,
    /// The id of the floor case this one is compared with (empty for floors).
    pub floor: String,
    /// For peers: the ddf filter it is paired with and how.
    pub pairing: String,
    /// Operations per criterion iteration.
    pub ops: usize,
}

impl Case {
    /// The floor of `lines` lines over `memory_bits` bits in a cell
    /// (the floor is measured one by one only).
    pub fn floor(
        id: String,
        size: &str,
        memory_bits: u64,
        [key, hash, stream]: [&str; 3],
        lines: u32,
        ops: usize,
    ) -> Case {
        Case {
            id,
            kind: "floor".into(),
            filter: "floor".into(),
            config: format!("lines={lines}"),
            size: size.into(),
            memory_bits,
            key: key.into(),
            hash: hash.into(),
            stream: stream.into(),
            path: "one".into(),
            lines,
            floor: String::new(),
            pairing: String::new(),
            ops,
        }
    }
}

/// Every case registered in one run.
#[derive(Debug, Default)]
pub struct Manifest {
    cases: Vec<Case>,
}

impl Manifest {
    /// Records `case` unless one with its id is there already; returns
    /// whether it was new (so each floor is measured once).
    pub fn add(&mut self, case: Case) -> bool {
        if self.cases.iter().any(|c| c.id == case.id) {
            return false;
        }
        self.cases.push(case);
        true
    }

    /// The cases so far.
    pub fn cases(&self) -> &[Case] {
        &self.cases
    }

    /// Reads a manifest written by [`write`](Self::write).
    pub fn read(path: &Path) -> std::io::Result<Self> {
        let text = std::fs::read_to_string(path)?;
        let cases = serde_json::from_str(&text).map_err(std::io::Error::other)?;
        Ok(Manifest { cases })
    }

    /// Writes the cases as a JSON array to `path`.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_string_pretty(&self.cases).map_err(std::io::Error::other)?;
        std::fs::write(path, json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str) -> Case {
        Case::floor(
            id.into(),
            "L2",
            1 << 20,
            ["u64", "sip13", "distinct"],
            1,
            4096,
        )
    }

    #[test]
    fn ids_are_unique_and_round_trip() {
        let mut m = Manifest::default();
        assert!(m.add(case("L2/a")));
        assert!(!m.add(case("L2/a")));
        assert!(m.add(case("L2/b")));
        let path = std::env::temp_dir().join(format!("ddf-manifest-{}.json", std::process::id()));
        m.write(&path).expect("writes");
        let back = Manifest::read(&path).expect("reads");
        std::fs::remove_file(&path).ok();
        assert_eq!(back.cases(), m.cases());
    }
}

/// One measured case of the steady-state growth table (`benches/growth`):
/// a filter the planner offers, fed `2w` items, on one path.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GrowthCase {
    /// Criterion's full id, `growth/2^k/span/filter path`.
    pub id: String,
    /// The id of the one-line floor measured just before this subject.
    pub floor: String,
    /// `log₂` of the window (items, or time units at one arrival per unit).
    pub log_window: u32,
    /// `count` or `time`.
    pub span: String,
    /// The family's display name.
    pub filter: String,
    /// Whether this is the planner's first candidate (its default).
    pub default: bool,
    /// `memory_bits` after the prefill.
    pub memory_bits: u64,
    /// The floor's array, in bits: the largest subject of the window.
    pub floor_bits: u64,
    /// `one` or `batch`.
    pub path: String,
    /// Operations per criterion iteration.
    pub ops: usize,
}
