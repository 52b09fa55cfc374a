//! `cargo xtask tables`: reproduced paper tables as CSV and Markdown.

mod apbf;
mod apbf_fp_time;
mod bloom_table4;
mod bounds;
mod ddp_saturation;
mod qht;
mod queue;
mod shf;
mod sliding;

use crate::Options;
use crate::paths::output_dir;
use std::fmt::Write as _;

/// One table: rows of cells under a header, with a Markdown note on how it
/// compares with the paper.
#[derive(Debug)]
pub(crate) struct Table {
    /// File stem under `target/ddf/tables/`.
    pub(crate) name: &'static str,
    pub(crate) header: Vec<&'static str>,
    pub(crate) rows: Vec<Vec<String>>,
    /// Markdown shown above the table in the `.md` twin.
    pub(crate) note: String,
}

/// A registered table producer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Producer {
    pub(crate) name: &'static str,
    pub(crate) make: fn(&Options) -> Table,
}

fn producers() -> Vec<Producer> {
    let mut all = Vec::new();
    all.extend(bounds::producers());
    all.extend(shf::producers());
    all.extend(sliding::producers());
    all.extend(apbf::producers());
    all.extend(apbf_fp_time::producers());
    all.extend(bloom_table4::producers());
    all.extend(qht::producers());
    all.extend(queue::producers());
    all.extend(ddp_saturation::producers());
    all
}

impl Table {
    fn csv(&self) -> String {
        let mut out = self.header.join(",");
        out.push('\n');
        for row in &self.rows {
            out.push_str(&row.join(","));
            out.push('\n');
        }
        out
    }

    fn markdown(&self, quick: bool) -> String {
        let mut out = format!("# {}\n\n{}\n\n", self.name, self.note);
        if quick {
            out.push_str("*Produced with `--quick`: shorter streams than the paper's.*\n\n");
        }
        let _ = writeln!(out, "| {} |", self.header.join(" | "));
        let _ = writeln!(out, "|{}", " --- |".repeat(self.header.len()));
        for row in &self.rows {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        out
    }
}

/// Writes every selected table; `Ok(true)` when all were written.
pub fn run(opts: &Options) -> Result<bool, String> {
    let dir = output_dir().map_err(|e| e.to_string())?.join("tables");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let selected: Vec<Producer> = producers()
        .into_iter()
        .filter(|p| {
            opts.only
                .as_ref()
                .is_none_or(|s| p.name.contains(s.as_str()))
        })
        .collect();
    if opts.list {
        for p in &selected {
            println!("{}", p.name);
        }
        return Ok(true);
    }
    if selected.is_empty() {
        return Err(format!(
            "no table name contains `{}`",
            opts.only.as_deref().unwrap_or("")
        ));
    }
    for p in selected {
        eprint!("table {:<32} ", p.name);
        let t = std::time::Instant::now();
        let table = (p.make)(opts);
        std::fs::write(dir.join(format!("{}.csv", table.name)), table.csv())
            .map_err(|e| e.to_string())?;
        std::fs::write(
            dir.join(format!("{}.md", table.name)),
            table.markdown(opts.quick),
        )
        .map_err(|e| e.to_string())?;
        eprintln!(
            "{} rows ({:.1} s)",
            table.rows.len(),
            t.elapsed().as_secs_f64()
        );
    }
    eprintln!("wrote tables to {}", dir.display());
    Ok(true)
}
