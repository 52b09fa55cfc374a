//! Tables 1, 4 and 5 of the QHT paper, reproduced.

use super::{Producer, Table};
use crate::Options;
use crate::derive_seeds;
use ddf_core::{DuplicateFilter, KeyedSipHasher, Window};
use ddf_cuckoo::{StreamRule, StreamingCuckoo};
use ddf_hash::ZeroPolicy;
use ddf_qht::{Qht, Qqhtd, Sqf};
use ddf_sim::{EvalConfig, Report, Uniform, evaluate, evaluate_many, run_seeds, threads};
use ddf_theory::cuckoo;
use ddf_theory::qht::{fp_m, fp_m_first_empty, fpr_between, fpr_inf, sqf_fpr_inf};
use ddf_theory::stream::expected_duplicate_fraction;
use std::fmt::Write as _;

pub(crate) fn producers() -> Vec<Producer> {
    vec![
        Producer {
            name: "qht-table1",
            make: table1,
        },
        Producer {
            name: "qht-table5",
            make: table5,
        },
        Producer {
            name: "qht-table4",
            make: table4,
        },
    ]
}

/// The setup of Table 1 and Table 5 (§4.5 and Appendix C): filters of
/// 65,536 bits, uniform streams of 100,000 elements over 2^20, 10 runs.
const SMALL_MEMORY: u64 = 65_536;
const SMALL_ALPHABET: u64 = 1 << 20;
const SMALL_ITEMS: u64 = 100_000;
const SMALL_RUNS: usize = 10;

/// Table 1: `(k, s)` for `S = 2^s = 4·k`, and the paper's FPR, FNR, ER (%).
const TABLE1: [(usize, u32, f64, f64, f64); 5] = [
    (1, 2, 22.57, 35.89, 58.45),
    (2, 3, 23.25, 44.24, 67.49),
    (4, 4, 23.53, 50.77, 74.30),
    (8, 5, 23.62, 54.55, 78.17),
    (16, 6, 23.50, 58.73, 82.23),
];

/// Table 5, artificial stream: `(k, s)` and the paper's ER (%) of QHT and QQHTD.
const TABLE5: [(usize, u32, f64, f64); 4] = [
    (2, 3, 67.39, 67.91),
    (4, 4, 74.48, 74.41),
    (8, 5, 79.32, 79.19),
    (16, 6, 82.10, 82.26),
];

/// The mean of a per-run rate, in percent (the paper averages runs).
fn mean_pct(reports: &[Report], rate: fn(&Report) -> f64) -> f64 {
    100.0 * reports.iter().map(rate).sum::<f64>() / reports.len().max(1) as f64
}

/// One report per seed for `make(seed)` on the small uniform stream.
fn small_runs<F: DuplicateFilter>(
    opts: &Options,
    salt: u64,
    make: impl Fn(u64) -> F + Sync,
) -> Vec<Report> {
    let seeds = derive_seeds(opts.seed, salt, SMALL_RUNS);
    run_seeds(&seeds, threads(), |seed| {
        let mut filter = make(seed);
        let mut source = Uniform::new(SMALL_ALPHABET, seed).expect("alphabet ≥ 1");
        let cfg = EvalConfig::new(Window::Unbounded, SMALL_ITEMS);
        evaluate(
            &mut filter,
            &mut source,
            &KeyedSipHasher::with_seed(seed),
            &cfg,
        )
    })
}

fn pct(x: f64) -> String {
    format!("{x:.2}")
}

/// Table 1 (§4.5): QHTs of about 65,536 bits with the same `k/S`.
fn table1(opts: &Options) -> Table {
    let mut rows = Vec::new();
    let mut side = String::from(
        "| S (paper) | k | s | N | S as run | FPR paper | FPR ours | FPR theory, first-empty | \
         FPR theory, Thm 4.1 | FNR paper | FNR ours | ER paper | ER ours |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for (i, &(k, s, p_fpr, p_fnr, p_er)) in TABLE1.iter().enumerate() {
        let make = |seed| {
            Qht::with_memory(SMALL_MEMORY, k, s)
                .expect("valid")
                .with_seed(seed)
        };
        let probe = make(0);
        let (n_rows, values) = (probe.rows() as f64, probe.fingerprints() as f64);
        let reports = small_runs(opts, 100 + i as u64, make);
        let (fpr, fnr, er) = (
            mean_pct(&reports, Report::fpr),
            mean_pct(&reports, Report::fnr),
            mean_pct(&reports, Report::er),
        );
        let (n, u) = (SMALL_ITEMS as f64, SMALL_ALPHABET as f64);
        let exact =
            100.0 * fpr_between(0.0, n, u, |m| fp_m_first_empty(m, n_rows, k as f64, values));
        let thm41 = 100.0 * fpr_between(0.0, n, u, |m| fp_m(m, n_rows, k as f64, values));
        let label = 1u64 << s;
        rows.push(vec![
            label.to_string(),
            k.to_string(),
            pct(fpr),
            pct(fnr),
            pct(er),
        ]);
        let _ = writeln!(
            side,
            "| {label} | {k} | {s} | {n_rows} | {values} | {p_fpr:.2} | {fpr:.2} | {exact:.2} | \
             {thm41:.2} | {p_fnr:.2} | {fnr:.2} | {p_er:.2} | {er:.2} |"
        );
    }
    Table {
        name: "qht-table1",
        header: vec!["S", "k", "fpr_pct", "fnr_pct", "er_pct"],
        rows,
        note: format!(
            "Table 1 of *Quotient Hash Tables* (§4.5): QHTs of about 65,536 bits with `k/S = 1/4` \
             (as labelled), streams of 100,000 elements drawn uniformly from 2^20 (expected \
             duplicates {:.2} %), averaged over {SMALL_RUNS} runs. The column `S` is the paper's \
             label `2^s`; the filters keep 0 for empty cells and rehash zero fingerprints (§3.2 \
             option 3, as the paper says it does), so they run with `S = 2^s − 1` and `k/S` = \
             1/3, 2/7, 4/15, 8/31, 16/63.\n\n\
             The theory columns average `FP_m` over the stream's unseen elements: the exact \
             first-empty form (`ddf_theory::qht::fp_m_first_empty`) and Theorem 4.1's full-row \
             form. The paper's measured FPR follows the first-empty form; Theorem 4.1 \
             underestimates it for `k > 1` (see `docs/errata.md`). No formula of the paper \
             covers the FNR of a filter whose rows are still filling.\n\n{side}",
            100.0 * expected_duplicate_fraction(SMALL_ITEMS as f64, SMALL_ALPHABET as f64)
        ),
    }
}

/// Table 5 (Appendix C), artificial stream: QHT against QQHTD.
fn table5(opts: &Options) -> Table {
    let mut rows = Vec::new();
    let mut side = String::from(
        "| k | S (paper) | QHT ER paper | QHT ER ours | QQHTD ER paper | QQHTD ER ours |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for (i, &(k, s, p_qht, p_qqhtd)) in TABLE5.iter().enumerate() {
        let qht = small_runs(opts, 200 + i as u64, |seed| {
            Qht::with_memory(SMALL_MEMORY, k, s)
                .expect("valid")
                .with_seed(seed)
        });
        let queue = small_runs(opts, 200 + i as u64, |_| {
            Qqhtd::with_memory(SMALL_MEMORY, k, s).expect("valid")
        });
        let (er_qht, er_queue) = (mean_pct(&qht, Report::er), mean_pct(&queue, Report::er));
        let label = 1u64 << s;
        rows.push(vec![
            "QHT".into(),
            k.to_string(),
            label.to_string(),
            pct(er_qht),
        ]);
        rows.push(vec![
            "QQHTD".into(),
            k.to_string(),
            label.to_string(),
            pct(er_queue),
        ]);
        let _ = writeln!(
            side,
            "| {k} | {label} | {p_qht:.2} | {er_qht:.2} | {p_qqhtd:.2} | {er_queue:.2} |"
        );
    }
    Table {
        name: "qht-table5",
        header: vec!["filter", "k", "S", "er_pct"],
        rows,
        note: format!(
            "Table 5 of *Quotient Hash Tables* (Appendix C), artificial stream: QHT and QQHTD \
             with the same parameters, 65,536 bits, 100,000 elements drawn uniformly from 2^20, \
             averaged over {SMALL_RUNS} runs; both filters see the same streams. `S` is the \
             paper's label `2^s` (the filters run with `S = 2^s − 1`, as in Table 1). The real \
             stream of the paper (CommonCrawl URLs) is not reproduced.\n\n{side}"
        ),
    }
}

/// Table 4's memory budgets, in bits.
const TABLE4_MEMORY: [u64; 4] = [8_000_000, 1_000_000, 100_000, 10_000];

/// Table 4's artificial streams: alphabet exponent, the paper's duplicate
/// percentage, and its FPR/FNR (%) of SQF, QHT and Cuckoo per memory budget
/// (in the order of [`TABLE4_MEMORY`]).
type PaperRates = [[(f64, f64); 3]; 4];
const TABLE4_PAPER: [(u32, f64, PaperRates); 2] = [
    (
        24,
        88.82,
        [
            [(21.87, 64.62), (12.02, 70.74), (27.80, 69.14)],
            [(24.60, 73.67), (14.00, 83.80), (28.41, 71.19)],
            [(24.94, 74.84), (14.26, 85.53), (28.52, 71.44)],
            [(24.98, 74.99), (14.28, 85.69), (28.55, 71.47)],
        ],
    ),
    (
        27,
        39.79,
        [
            [(24.42, 72.09), (13.86, 81.52), (28.39, 70.82)],
            [(24.92, 74.64), (14.24, 85.18), (28.50, 71.41)],
            [(24.99, 74.96), (14.29, 85.66), (28.51, 71.49)],
            [(25.00, 74.99), (14.28, 85.72), (28.52, 71.49)],
        ],
    ),
];

/// A filter of Table 4 at a memory budget.
struct Contender {
    name: &'static str,
    make: fn(u64, u64) -> Box<dyn DuplicateFilter + Send>,
}

/// The filters of Table 4 with the paper's parameters (§6.1), sized as the
/// authors' benchmark code sizes them (`mariuslp/duplicate_sliding_benchmark`,
/// read for facts; see `docs/errata.md`): SQF with `k = 1, r = 2, r' = 1` and
/// `2^q` rows, the largest that fit; QHT with `k = 1`, 3-bit fingerprints,
/// the whole budget; Cuckoo with one 3-bit cell per bucket, fingerprint 0
/// mapped to 1, and `2^⌊log₂(M/(b·2^f))⌋` buckets (the code divides the
/// budget by `2^f` where the cell width is `f`). The code relocates at most
/// 50 times (Fan et al. 500); 16 is used here, since once the table is full
/// the bound only decides which fingerprint is dropped: over the full stream
/// at 10^6 bits the bounds 16 and 500 give FPR/FNR 28.06/70.00 and
/// 28.05/70.00 %, at a fraction of the cost. SBF, A2 and b_DBF are in
/// `bloom-table4`. The cuckoo filter inserts every item, found or not, as the
/// benchmark code does (`StreamRule::InsertAlways`; the crate's default
/// leaves the table alone on a hit, see `docs/errata.md`).
const CONTENDERS: [Contender; 3] = [
    Contender {
        name: "SQF",
        make: |bits, seed| {
            Box::new(
                Sqf::with_memory_power_of_two(bits, 1, 2, 1)
                    .expect("valid")
                    .with_seed(seed),
            )
        },
    },
    Contender {
        name: "QHT",
        make: |bits, seed| Box::new(Qht::with_memory(bits, 1, 3).expect("valid").with_seed(seed)),
    },
    Contender {
        name: "Cuckoo",
        make: |bits, seed| {
            Box::new(
                StreamingCuckoo::new(benchmark_cuckoo_buckets(bits), 1, 3)
                    .and_then(|f| f.with_max_kicks(16))
                    .expect("valid")
                    .with_zero_policy(ZeroPolicy::MapToOne)
                    .with_stream_rule(StreamRule::InsertAlways)
                    .with_seed(seed),
            )
        },
    },
];

/// The bucket count of the QHT benchmark code's cuckoo filter (one cell of
/// 3 bits per bucket) for a budget of `bits`: `2^⌊log₂(bits/8)⌋`.
fn benchmark_cuckoo_buckets(bits: u64) -> u64 {
    let buckets = (bits / 8).max(1);
    1 << (63 - buckets.leading_zeros())
}

/// Table 4 (Appendix A), artificial streams: every filter at every budget,
/// all fed one stream per (alphabet, run).
fn table4(opts: &Options) -> Table {
    // The paper's 1.5·10^8 elements; one run, since at this length the
    // rates vary between runs in the third decimal place of a percent.
    let items: u64 = if opts.quick { 2_000_000 } else { 150_000_000 };
    let runs = 1;
    // One job per (stream, run), each feeding the 12 filters of its stream.
    let jobs: Vec<(usize, u64)> = TABLE4_PAPER
        .iter()
        .enumerate()
        .flat_map(|(i, _)| {
            derive_seeds(opts.seed, 400 + i as u64, runs)
                .into_iter()
                .map(move |s| (i, s))
        })
        .collect();
    let indices: Vec<u64> = (0..jobs.len() as u64).collect();
    let results = run_seeds(&indices, threads(), |j| {
        let (stream, seed) = jobs[j as usize];
        let alphabet = 1u64 << TABLE4_PAPER[stream].0;
        let mut filters: Vec<Box<dyn DuplicateFilter + Send>> = TABLE4_MEMORY
            .iter()
            .flat_map(|&bits| CONTENDERS.iter().map(move |c| (c.make)(bits, seed)))
            .collect();
        let mut views: Vec<&mut dyn DuplicateFilter> = filters
            .iter_mut()
            .map(|f| &mut **f as &mut dyn DuplicateFilter)
            .collect();
        let mut source = Uniform::new(alphabet, seed).expect("alphabet ≥ 1");
        let cfg = EvalConfig::new(Window::Unbounded, items).batch(4096);
        evaluate_many(
            &mut views,
            &mut source,
            &KeyedSipHasher::with_seed(seed),
            &cfg,
        )
    });
    let mut rows = Vec::new();
    let mut side = String::from(
        "| stream | memory (bits) | filter | FPR paper | FPR ours | FNR paper | FNR ours | \
         ER paper | ER ours |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut dup_note = String::new();
    for (stream, (exponent, paper_dup, paper)) in TABLE4_PAPER.iter().enumerate() {
        let label = format!("uniform-2^{exponent}");
        let mine: Vec<&Vec<Report>> = jobs
            .iter()
            .zip(&results)
            .filter(|((s, _), _)| *s == stream)
            .map(|(_, r)| r)
            .collect();
        let dups =
            100.0 * mine.iter().map(|r| r[0].duplicate_fraction()).sum::<f64>() / mine.len() as f64;
        let _ = write!(
            dup_note,
            " 2^{exponent}: {dups:.2} % here, {paper_dup:.2} % in the paper;"
        );
        for (m, &bits) in TABLE4_MEMORY.iter().enumerate() {
            for (c, contender) in CONTENDERS.iter().enumerate() {
                let index = m * CONTENDERS.len() + c;
                let per_run: Vec<Report> = mine.iter().map(|r| r[index].clone()).collect();
                let (fpr, fnr, er) = (
                    mean_pct(&per_run, Report::fpr),
                    mean_pct(&per_run, Report::fnr),
                    mean_pct(&per_run, Report::er),
                );
                rows.push(vec![
                    label.clone(),
                    bits.to_string(),
                    contender.name.into(),
                    pct(fpr),
                    pct(fnr),
                    pct(er),
                ]);
                let (p_fpr, p_fnr) = paper[m][c];
                let _ = writeln!(
                    side,
                    "| {label} | {bits} | {} | {p_fpr:.2} | {fpr:.2} | {p_fnr:.2} | {fnr:.2} | \
                     {:.2} | {er:.2} |",
                    contender.name,
                    p_fpr + p_fnr
                );
            }
        }
    }
    Table {
        name: "qht-table4",
        header: vec![
            "stream",
            "memory_bits",
            "filter",
            "fpr_pct",
            "fnr_pct",
            "er_pct",
        ],
        rows,
        note: format!(
            "Table 4 of *Quotient Hash Tables* (Appendix A), artificial streams: elements drawn \
             uniformly from 2^24 and 2^27, filters for budgets of 10^4 to 8·10^6 bits with the \
             parameters of §6.1, sized as the authors' benchmark code sizes them: SQF \
             `k = 1, r = 2, r' = 1` with `2^q` rows, the largest that fit (6,144 to 6,291,456 \
             bits); QHT `k = 1, s = 3` over the whole budget; Cuckoo one 3-bit cell per bucket, \
             0 mapped to 1, `2^⌊log₂(M/8)⌋` buckets (3,072 to 1,572,864 bits, the code divides \
             the budget by 2^3 instead of 3), 16 relocations (the code: 50; the rates do not \
             depend on it once the table is full). Streams of {items} elements (the paper: \
             1.5·10^8), {runs} run each, every filter fed the same streams; duplicate \
             fractions: {}.\n\n\
             At the paper's length every row agrees with the paper's to within a few \
             hundredths of a point; `docs/errata.md` explains the sizes. Asymptotic FPRs: QHT \
             `k/S = 1/7` = {:.2} %, SQF {:.2} % (four equiprobable fingerprints), Cuckoo {:.2} % \
             with 0 mapped to 1 (the independent-cells model of `ddf_theory::cuckoo::fpr_inf`; \
             the cuckoo here inserts every item, as the benchmark code does; the crate's \
             default, which does not store a found item again, has no model yet, see \
             `docs/errata.md`). \
             The real CommonCrawl stream is not reproduced; the SBF, A2 and b_DBF columns are in \
             `bloom-table4`.\n\n{side}",
            dup_note.trim().trim_end_matches(';'),
            100.0 * fpr_inf(1.0, 7.0),
            100.0 * sqf_fpr_inf(1.0, 2, 1),
            100.0 * cuckoo::fpr_inf(1.0, &cuckoo::zero_to_one_law(3).unwrap_or_default()),
        ),
    }
}
