//! `cargo xtask figures`: the papers' figures as SVG, drawn from the CSVs of `cargo xtask tables`.

use crate::Options;
use crate::paths::output_dir;
use plotters::prelude::*;
use std::path::Path;

/// How a series is drawn: theory as a line, simulation as points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Line,
    Points,
}

#[derive(Debug)]
struct Series {
    label: String,
    style: Style,
    /// Index into [`COLORS`]: a theory line and its measured points share one.
    color: usize,
    points: Vec<(f64, f64)>,
}

#[derive(Debug)]
struct Figure {
    name: &'static str,
    title: String,
    x_label: &'static str,
    y_label: &'static str,
    log_x: bool,
    log_y: bool,
    /// Where the legend goes: a corner the data leave empty.
    legend: SeriesLabelPosition,
    series: Vec<Series>,
}

/// A parsed CSV: its header and rows of cells.
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(dir: &Path, name: &str) -> Result<Csv, String> {
        let path = dir.join(format!("{name}.csv"));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: {e} (run `cargo xtask tables` first)", path.display()))?;
        let mut lines = text.lines();
        let header = lines
            .next()
            .ok_or_else(|| format!("{}: empty", path.display()))?
            .split(',')
            .map(str::to_string)
            .collect();
        let rows = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        Ok(Csv { header, rows })
    }

    fn col(&self, name: &str) -> Result<usize, String> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("no column `{name}` in {:?}", self.header))
    }

    /// `(x, y)` of the rows where both parse and `keep` holds.
    fn points(
        &self,
        x: &str,
        y: &str,
        keep: impl Fn(&[String]) -> bool,
    ) -> Result<Vec<(f64, f64)>, String> {
        let (xi, yi) = (self.col(x)?, self.col(y)?);
        Ok(self
            .rows
            .iter()
            .filter(|r| keep(r))
            .filter_map(|r| Some((r.get(xi)?.parse().ok()?, r.get(yi)?.parse().ok()?)))
            .collect())
    }
}

/// `1.0e3` → 3 on a log axis; values ≤ 0 cannot be drawn there.
fn to_axis(v: f64, log: bool) -> Option<f64> {
    if !log {
        return v.is_finite().then_some(v);
    }
    (v > 0.0 && v.is_finite()).then(|| v.log10())
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

fn render(fig: &Figure, dir: &Path) -> Result<(), String> {
    let path = dir.join(format!("{}.svg", fig.name));
    let series: Vec<(&Series, Vec<(f64, f64)>)> = fig
        .series
        .iter()
        .map(|s| {
            let pts = s
                .points
                .iter()
                .filter_map(|&(x, y)| Some((to_axis(x, fig.log_x)?, to_axis(y, fig.log_y)?)))
                .collect();
            (s, pts)
        })
        .collect();
    let all: Vec<(f64, f64)> = series.iter().flat_map(|(_, p)| p.iter().copied()).collect();
    if all.is_empty() {
        return Err(format!("{}: no drawable point", fig.name));
    }
    let bounds = |f: fn(&(f64, f64)) -> f64| {
        let lo = all.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = all.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        let pad = ((hi - lo) * 0.05).max(1e-9);
        (lo - pad)..(hi + pad)
    };
    let (xr, yr) = (bounds(|p| p.0), bounds(|p| p.1));
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", fig.name);
    let root = SVGBackend::new(&path, (860, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&fig.title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(76)
        .build_cartesian_2d(xr, yr)
        .map_err(|e| err(&e))?;
    let tick = |log: bool| {
        move |v: &f64| {
            if log {
                format!("1e{v:.1}").trim_end_matches(".0").to_string()
            } else if v.abs() >= 1e5 || (v.abs() < 1e-2 && *v != 0.0) {
                format!("{v:.1e}")
            } else {
                format!("{v:.3}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            }
        }
    };
    let (fx, fy) = (tick(fig.log_x), tick(fig.log_y));
    chart
        .configure_mesh()
        .x_desc(fig.x_label)
        .y_desc(fig.y_label)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| err(&e))?;
    for (s, pts) in &series {
        let color = COLORS[s.color % COLORS.len()];
        match s.style {
            Style::Line => {
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(|e| err(&e))?
                    .label(&s.label)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
            }
            Style::Points => {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|e| err(&e))?
                    .label(&s.label)
                    .legend(move |(x, y)| Circle::new((x + 9, y), 3, color.filled()));
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(fig.legend.clone())
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

fn line(label: impl Into<String>, color: usize, points: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        style: Style::Line,
        color,
        points,
    }
}

fn dots(label: impl Into<String>, color: usize, points: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        style: Style::Points,
        color,
        points,
    }
}

/// `n` points from `lo` to `hi`, evenly spaced (or log-spaced).
fn grid(lo: f64, hi: f64, n: usize, log: bool) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let t = i as f64 / (n - 1) as f64;
            if log {
                (lo.ln() + t * (hi.ln() - lo.ln())).exp()
            } else {
                lo + t * (hi - lo)
            }
        })
        .collect()
}

/// Figure 1 of the sliding-window paper: SHF and CSHF error against the
/// window at M = 10⁵ bits (the memory `tables/shf.rs` uses).
fn shf_er(dir: &Path) -> Result<Figure, String> {
    use ddf_theory::shf::{fp_cshf, fp_shf};
    let csv = Csv::read(dir, "shf-er")?;
    let m = 1e5;
    let ws = grid(250.0, 10_000.0, 200, false);
    Ok(Figure {
        name: "shf-er",
        title: "SHF and CSHF error rate vs window (M = 10^5 bits, |Γ| = 2^18)".into(),
        x_label: "window w (items)",
        y_label: "error rate FPR + FNR",
        log_x: false,
        log_y: false,
        legend: SeriesLabelPosition::UpperLeft,
        series: vec![
            line(
                "SHF, Theorem 3",
                0,
                ws.iter().map(|&w| (w, fp_shf(m, w))).collect(),
            ),
            line(
                "CSHF, Theorem 3",
                1,
                ws.iter().map(|&w| (w, fp_cshf(m, w))).collect(),
            ),
            dots("SHF, simulated", 0, csv.points("w", "er_shf", |_| true)?),
            dots("CSHF, simulated", 1, csv.points("w", "er_cshf", |_| true)?),
        ],
    })
}

/// Figure 2 of the sliding-window paper, scaled down: a QHT's error over
/// the stream length against Theorem 4's bound for any filter.
fn ddp_saturation(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "ddp-saturation")?;
    Ok(Figure {
        name: "ddp-saturation",
        title: "Saturation of a DDP filter: QHT error vs stream length (M = 2^17 bits, |Γ| = 2^23)"
            .into(),
        x_label: "stream length n (items)",
        y_label: "error rate FPR + FNR over the first n",
        log_x: true,
        log_y: false,
        legend: SeriesLabelPosition::LowerRight,
        series: vec![
            line(
                "Theorem 4 lower bound (any filter)",
                1,
                csv.points("n", "lower_bound", |_| true)?,
            ),
            line("QHT, §4 theory", 0, csv.points("n", "theory_er", |_| true)?),
            dots(
                "QHT, simulated",
                0,
                csv.points("n", "measured_er", |_| true)?,
            ),
        ],
    })
}

/// APBF paper Figure 6: the false-positive rate over time from empty.
fn apbf_fp_time(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "apbf-fp-time")?;
    let mut series = Vec::new();
    let targets: Vec<String> = {
        let i = csv.col("target_fp")?;
        let mut t: Vec<String> = csv.rows.iter().map(|r| r[i].clone()).collect();
        t.dedup();
        t
    };
    let (ti, ki, li) = (csv.col("target_fp")?, csv.col("k")?, csv.col("l")?);
    for (color, t) in targets.iter().enumerate() {
        let first = csv.rows.iter().find(|r| &r[ti] == t);
        let kl = first.map_or(String::new(), |r| format!("k = {}, l = {}", r[ki], r[li]));
        series.push(line(
            format!("target {t} ({kl}), theory"),
            color,
            csv.points("insertions", "theory_fp", |r| &r[ti] == t)?,
        ));
        series.push(dots(
            format!("target {t}, simulated"),
            color,
            csv.points("insertions", "measured_fp", |r| &r[ti] == t)?,
        ));
    }
    Ok(Figure {
        name: "apbf-fp-time",
        title: "APBF false-positive rate over distinct insertions (w = 1000)".into(),
        x_label: "insertions",
        y_label: "false-positive rate",
        log_x: false,
        log_y: true,
        legend: SeriesLabelPosition::LowerRight,
        series,
    })
}

/// APBF paper Figure 7: false positives fall as duplicates grow.
fn apbf_fp_duplicates(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "apbf-fp-duplicates")?;
    Ok(Figure {
        name: "apbf-fp-duplicates",
        title: "APBF false-positive rate under duplicates (k = 4, l = 3, worst point)".into(),
        x_label: "duplicate rate of the stream",
        y_label: "false-positive rate",
        log_x: false,
        log_y: false,
        legend: SeriesLabelPosition::UpperRight,
        series: vec![
            line(
                "F recursion over distinct items per slice",
                0,
                csv.points("duplicate_rate", "theory_fp", |_| true)?,
            ),
            dots(
                "simulated",
                0,
                csv.points("duplicate_rate", "measured_fp", |_| true)?,
            ),
        ],
    })
}

/// APBF paper Figure 4: the probability of reporting an item by its age
/// in generations, just before a shift (theory), for k = 10, l = 15.
fn apbf_report_by_age() -> Figure {
    use ddf_theory::apbf::{report_probability, worst_case_fill_ratios};
    let (k, l) = (10usize, 15usize);
    let r = worst_case_fill_ratios(k, l);
    let pts = (0..k + l + 2)
        .map(|age| (age as f64, report_probability(k, &r, age)))
        .collect();
    Figure {
        name: "apbf-report-by-age",
        title: "APBF probability of reporting an item by age (k = 10, l = 15)".into(),
        x_label: "age of the item's generation (generations)",
        y_label: "probability of being reported",
        log_x: false,
        log_y: false,
        legend: SeriesLabelPosition::UpperRight,
        series: vec![line("F recursion, just before a shift", 0, pts)],
    }
}

/// Space of windowed filters against the Naor–Yogev lower bound
/// (`sliding-space.csv`): for `n = 2^16` and the least and the tightest
/// slack of the table, Theorem 1.2's bound and Theorem 1.1's construction as
/// lines (and, for no slack limit, the construction with an ideal succinct
/// dictionary counted exactly), the built filter's bits per element as points, and the quoted
/// SWAMP and APBBF sizes.
fn sliding_space(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "sliding-space")?;
    let (ni, fi, si) = (csv.col("n")?, csv.col("filter")?, csv.col("slack")?);
    let n = "65536";
    let pick = |filter: &str, slack: &str| -> Result<Vec<(f64, f64)>, String> {
        let mut pts = csv.points("epsilon", "bits_per_element", |r| {
            r[ni] == n && r[fi] == filter && (slack.is_empty() || r[si] == slack)
        })?;
        for p in &mut pts {
            p.0 = 1.0 / p.0;
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(pts)
    };
    let mut series = Vec::new();
    for (color, (slack, name)) in [("inf", "no slack limit"), ("1024", "slack 1024")]
        .into_iter()
        .enumerate()
    {
        series.push(line(
            format!("lower bound (Thm 1.2), {name}"),
            color,
            pick("lower-bound-thm-1.2", slack)?,
        ));
        series.push(line(
            format!("construction (Thm 1.1), {name}"),
            color + 2,
            pick("construction-thm-1.1", slack)?,
        ));
        series.push(dots(
            format!("sliding Bloom, built, {name}"),
            color,
            pick("naor-yogev", slack)?,
        ));
    }
    series.push(line(
        "construction, succinct dictionary counted exactly, no slack limit",
        5,
        pick("construction-succinct", "inf")?,
    ));
    let mut q = csv.points("epsilon", "bits_per_element", |r| {
        r[ni] == n && r[fi].contains("quoted")
    })?;
    for p in &mut q {
        p.0 = 1.0 / p.0;
    }
    series.push(dots("SWAMP and APBBF (quoted)", 4, q));
    Ok(Figure {
        name: "sliding-space",
        title: "Space of windowed filters vs the Naor–Yogev lower bound (n = 2^16)".into(),
        x_label: "1/ε",
        y_label: "bits per window element",
        log_x: true,
        log_y: false,
        legend: SeriesLabelPosition::UpperLeft,
        series,
    })
}

/// Theorems 1–2 of the sliding-window paper: memory per window item of the
/// exact and near-exact filters (`window-memory.csv`, theory only).
fn window_memory(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "window-memory")?;
    let wi = csv.col("w")?;
    let gi = csv.col("log2_gamma")?;
    let parse_w = |s: &str| -> Option<f64> {
        let e: i32 = s.strip_prefix("2^")?.parse().ok()?;
        Some(2f64.powi(e))
    };
    let col = |name: &str, gamma: &str| -> Result<Vec<(f64, f64)>, String> {
        let yi = csv.col(name)?;
        Ok(csv
            .rows
            .iter()
            .filter(|r| r[gi] == gamma)
            .filter_map(|r| Some((parse_w(&r[wi])?, r[yi].parse().ok()?)))
            .collect())
    };
    Ok(Figure {
        name: "window-memory",
        title: "Memory of exact and near-exact windowed filters (Theorems 1–2)".into(),
        x_label: "window w (items)",
        y_label: "bits per window item",
        log_x: true,
        log_y: false,
        legend: SeriesLabelPosition::UpperLeft,
        series: vec![
            line(
                "exact (Thm 1), |Γ| = 2^64",
                0,
                col("thm1_bits_per_item", "64")?,
            ),
            line(
                "exact (Thm 1), |Γ| = 2^32",
                1,
                col("thm1_bits_per_item", "32")?,
            ),
            line(
                "near-exact, constant time (Thm 2)",
                2,
                col("thm2_constant_bits_per_item", "64")?,
            ),
            line(
                "near-exact, linear time (Thm 2)",
                3,
                col("thm2_linear_bits_per_item", "64")?,
            ),
        ],
    })
}

/// Theorem 4 of the sliding-window paper: the error no filter of `M` bits
/// beats on a uniform stream (the hatched area of Figure 2), by alphabet.
fn error_lower_bound() -> Figure {
    use ddf_theory::sliding_window::ep_inf_lower_bound;
    let ms = grid(1e4, 1e8, 120, true);
    let series = [18, 20, 26]
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let gamma = 2f64.powi(e);
            line(
                format!("EP_∞ lower bound, |Γ| = 2^{e}"),
                i,
                ms.iter()
                    .map(|&m| (m, ep_inf_lower_bound(m, gamma)))
                    .collect(),
            )
        })
        .collect();
    Figure {
        name: "error-lower-bound",
        title: "Least error of any duplicate filter of M bits (Theorem 4, n → ∞)".into(),
        x_label: "memory M (bits)",
        y_label: "error rate lower bound",
        log_x: true,
        log_y: false,
        legend: SeriesLabelPosition::LowerLeft,
        series,
    }
}

/// Figure 5 of the sliding-window paper: queued filters (`L = 10`) against
/// the window, with Theorems 7–8 for the queued QHT as a line, from
/// `queue-er-vs-window.csv`.
fn queue_er_vs_window(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "queue-er-vs-window")?;
    let (fi, qi, li) = (csv.col("filter")?, csv.col("queued")?, csv.col("L")?);
    let mut series = vec![line(
        "QHT, L = 10, theory (Thms 7–8, one hash)",
        0,
        csv.points("w", "er", |r| r[fi] == "QHT-theory")?,
    )];
    for (i, f) in ["QHT", "SQF", "Cuckoo", "SBF"].into_iter().enumerate() {
        series.push(dots(
            format!("{f}, L = 10"),
            i,
            csv.points("w", "er", |r| {
                r[fi] == f && r[qi] == "true" && r[li] == "10"
            })?,
        ));
    }
    Ok(Figure {
        name: "queue-er-vs-window",
        title: "Queued filters of 10^5 bits (L = 10): error rate vs window".into(),
        x_label: "window w (items)",
        y_label: "error rate FPR + FNR",
        log_x: true,
        log_y: false,
        legend: SeriesLabelPosition::UpperLeft,
        series,
    })
}

/// Figure 7 of the sliding-window paper: vanilla against queued filters,
/// the queue at the paper's `L = 10`, from `queue-er-vs-window.csv`.
fn queue_vs_vanilla(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "queue-er-vs-window")?;
    let (fi, qi, li) = (csv.col("filter")?, csv.col("queued")?, csv.col("L")?);
    let mut series = Vec::new();
    for (i, f) in ["QHT", "SBF", "SQF"].into_iter().enumerate() {
        series.push(line(
            format!("{f}, vanilla"),
            i,
            csv.points("w", "er", |r| r[fi] == f && r[qi] == "false")?,
        ));
        series.push(dots(
            format!("{f}, queued, L = 10"),
            i,
            csv.points("w", "er", |r| {
                r[fi] == f && r[qi] == "true" && r[li] == "10"
            })?,
        ));
    }
    Ok(Figure {
        name: "queue-vs-vanilla",
        title: "Vanilla (lines) vs queued (points) filters of 10^5 bits".into(),
        x_label: "window w (items)",
        y_label: "error rate FPR + FNR",
        log_x: true,
        log_y: false,
        legend: SeriesLabelPosition::LowerRight,
        series,
    })
}

/// Figure 6 of the sliding-window paper: error of a queued QHT against its
/// number of subfilters `L`, simulated (`queue-er-vs-L.csv`, points) and
/// predicted (`queue-er-vs-L-theory.csv`, lines).
fn queue_er_vs_l(dir: &Path) -> Result<Figure, String> {
    let csv = Csv::read(dir, "queue-er-vs-L")?;
    let theory = Csv::read(dir, "queue-er-vs-L-theory")?;
    let (wi, twi) = (csv.col("w")?, theory.col("w")?);
    let mut ws: Vec<u64> = csv.rows.iter().filter_map(|r| r[wi].parse().ok()).collect();
    ws.sort_unstable();
    ws.dedup();
    let mut series = Vec::new();
    for (i, w) in ws.into_iter().take(COLORS.len()).enumerate() {
        let w = w.to_string();
        series.push(line(
            format!("w = {w}, theory"),
            i,
            theory.points("L", "er", |r| r[twi] == w)?,
        ));
        series.push(dots(
            format!("w = {w}"),
            i,
            csv.points("L", "er", |r| r[wi] == w)?,
        ));
    }
    Ok(Figure {
        name: "queue-er-vs-L",
        title: "Queued QHT (10^5 bits): error rate vs number of subfilters L".into(),
        x_label: "subfilters L",
        y_label: "error rate FPR + FNR",
        log_x: false,
        log_y: false,
        legend: SeriesLabelPosition::UpperRight,
        series,
    })
}

/// Writes every figure whose data exists; `Ok(false)` if one failed.
pub fn run(_opts: &Options) -> Result<bool, String> {
    let out = output_dir().map_err(|e| e.to_string())?;
    let tables = out.join("tables");
    let dir = out.join("figures");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let figures: Vec<(&str, Result<Figure, String>)> = vec![
        ("shf-er", shf_er(&tables)),
        ("ddp-saturation", ddp_saturation(&tables)),
        ("apbf-fp-time", apbf_fp_time(&tables)),
        ("apbf-fp-duplicates", apbf_fp_duplicates(&tables)),
        ("apbf-report-by-age", Ok(apbf_report_by_age())),
        ("sliding-space", sliding_space(&tables)),
        ("window-memory", window_memory(&tables)),
        ("error-lower-bound", Ok(error_lower_bound())),
        ("queue-er-vs-window", queue_er_vs_window(&tables)),
        ("queue-vs-vanilla", queue_vs_vanilla(&tables)),
        ("queue-er-vs-L", queue_er_vs_l(&tables)),
    ];
    let mut ok = true;
    let mut written = 0;
    for (name, fig) in figures {
        match fig.and_then(|f| render(&f, &dir)) {
            Ok(()) => {
                written += 1;
                eprintln!("figure {name:<24} written");
            }
            Err(e) if name.starts_with("queue-") && e.contains("run `cargo xtask tables`") => {
                eprintln!("figure {name:<24} skipped: its table is missing ({e})");
            }
            Err(e) => {
                ok = false;
                eprintln!("figure {name:<24} FAILED: {e}");
            }
        }
    }
    eprintln!("wrote {written} figures to {}", dir.display());
    Ok(ok)
}
