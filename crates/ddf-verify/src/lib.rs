//! ddf's verification: theory against simulation, the papers' tables and figures.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

// The root holds what every check and table shares (`Check`, `Ctx`, the
// seeds, the options); the runners (`verify`, `tables`, `figures`) use the
// checks, and no check imports a runner, so the modules form no cycle (tidy:
// `verification_modules_form_no_cycle`).

mod checks;
mod fig5;
pub mod figures;
pub mod outcome;
pub mod paths;
mod sliding_rows;
pub mod tables;
pub mod verify;

use crate::outcome::Outcome;

/// What a run of `verify`, `tables` or `figures` was asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// CI-sized streams.
    pub quick: bool,
    /// Only checks (or tables) whose id contains this.
    pub only: Option<String>,
    /// The base seed of every stream.
    pub seed: u64,
    /// List the checks (or tables) and exit.
    pub list: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            quick: false,
            only: None,
            seed: 1,
            list: false,
        }
    }
}

impl Options {
    /// Reads `--quick`, `--only SUBSTRING`, `--seed N` and `--list`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut opts = Options::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--quick" => opts.quick = true,
                "--list" => opts.list = true,
                "--only" => opts.only = Some(it.next().ok_or("--only needs a SUBSTRING")?.clone()),
                "--seed" => {
                    let v = it.next().ok_or("--seed needs a number")?;
                    opts.seed = v
                        .parse()
                        .map_err(|_| format!("--seed: `{v}` is not a non-negative integer"))?;
                }
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(opts)
    }
}

/// One registered check: theory against simulation for one claim of a paper.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Check {
    /// `family/what`, e.g. `exact/zero-errors-uniform`.
    pub(crate) id: &'static str,
    /// The paper and section (or theorem) the check tests.
    pub(crate) paper: &'static str,
    pub(crate) run: fn(&Ctx) -> Outcome,
}

/// What a check may ask of the run.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub(crate) quick: bool,
    pub(crate) seed: u64,
}

impl Ctx {
    /// `quick` in `--quick` mode, `full` otherwise.
    pub(crate) fn pick<T>(&self, quick: T, full: T) -> T {
        if self.quick { quick } else { full }
    }

    /// Runs `run(seed)` once per seed on all cores — `quick` seeds in
    /// `--quick` mode, `full` otherwise — and returns the results in seed order.
    pub(crate) fn per_seed<T: Send>(
        &self,
        salt: u64,
        quick: usize,
        full: usize,
        run: impl Fn(u64) -> T + Sync,
    ) -> Vec<T> {
        ddf_sim::run_seeds(
            &self.seeds(salt, self.pick(quick, full)),
            ddf_sim::threads(),
            run,
        )
    }

    /// `n` distinct seeds derived from the base seed and a per-check salt, so
    /// checks do not share streams.
    pub(crate) fn seeds(&self, salt: u64, n: usize) -> Vec<u64> {
        derive_seeds(self.seed, salt, n)
    }
}

/// `n` distinct seeds derived from a base seed and a salt (checks and tables).
pub(crate) fn derive_seeds(base: u64, salt: u64, n: usize) -> Vec<u64> {
    (0..n as u64)
        .map(|i| ddf_hash::mix64(base ^ ddf_hash::mix64(salt.wrapping_add(i << 32))))
        .collect()
}
