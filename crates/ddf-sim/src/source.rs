//! Seeded item sources: uniform, Zipf, all-distinct, and records of a file.

use ddf_core::{Digest, ParamError};
use ddf_hash::SplitMix64;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::io::{self, BufRead};
use std::path::Path;

/// A stream of items, each named by an id that identifies it exactly.
///
/// Ground truth compares ids; filters see [`digest`](Self::digest)s of the
/// items themselves (the id for generated streams, the record's text for
/// files), through the hasher under test.
pub trait Source {
    /// The next item's id, or `None` when a finite source is exhausted.
    fn next_id(&mut self) -> Option<u64>;

    /// The digest a filter sees for item `id`.
    fn digest<S: BuildHasher>(&self, hasher: &S, id: u64) -> Digest {
        ddf_hash::digest(hasher, &id)
    }

    /// The alphabet size |Γ|, when the source has one; every id is then
    /// below it, which lets the ground truth of a whole-stream window be a
    /// bitset over the ids.
    fn alphabet(&self) -> Option<u64> {
        None
    }
}

/// Items drawn uniformly at random from an alphabet of `U` ids, `0..U`: the
/// papers' artificial streams.
#[derive(Debug, Clone)]
pub struct Uniform {
    alphabet: u64,
    rng: SplitMix64,
}

impl Uniform {
    /// A uniform stream over `alphabet` ids (`U ≥ 1`), seeded.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sim::{Source, Uniform};
    ///
    /// let mut s = Uniform::new(100, 1)?;
    /// assert!(s.next_id().unwrap() < 100);
    /// assert!(Uniform::new(0, 1).is_err());
    /// # Ok::<(), ddf_core::ParamError>(())
    /// ```
    pub fn new(alphabet: u64, seed: u64) -> Result<Self, ParamError> {
        ddf_param_positive("alphabet", alphabet)?;
        Ok(Uniform {
            alphabet,
            rng: SplitMix64::new(seed),
        })
    }
}

fn ddf_param_positive(param: &'static str, v: u64) -> Result<u64, ParamError> {
    if v == 0 {
        Err(ParamError::new(param, 0, "at least 1"))
    } else {
        Ok(v)
    }
}

impl Source for Uniform {
    #[inline]
    fn next_id(&mut self) -> Option<u64> {
        Some(self.rng.below(self.alphabet))
    }

    fn alphabet(&self) -> Option<u64> {
        Some(self.alphabet)
    }
}

/// Every item new: ids 0, 1, 2, ... A filter's every DUPLICATE is a false positive.
#[derive(Debug, Clone, Default)]
pub struct Distinct {
    next: u64,
}

impl Distinct {
    /// An all-distinct stream starting at id `first`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sim::{Distinct, Source};
    ///
    /// let mut s = Distinct::new(5);
    /// assert_eq!((s.next_id(), s.next_id()), (Some(5), Some(6)));
    /// ```
    pub fn new(first: u64) -> Self {
        Distinct { next: first }
    }
}

impl Source for Distinct {
    #[inline]
    fn next_id(&mut self) -> Option<u64> {
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        Some(id)
    }
}

/// Items drawn from a Zipf distribution over ranks `0..U`: rank `r` has
/// probability proportional to `1/(r+1)^s`.
///
/// Sampled in O(1) by rejection-inversion (Hörmann and Derflinger, 1996),
/// so alphabets of billions need no table.
#[derive(Debug, Clone)]
pub struct Zipf {
    alphabet: u64,
    exponent: f64,
    rng: SplitMix64,
    h_integral_x1: f64,
    h_integral_n: f64,
    s_const: f64,
}

impl Zipf {
    /// A Zipf stream over `alphabet` ranks (`U ≥ 1`) with exponent `s` (finite, `0 < s ≤ 20`).
    ///
    /// # Examples
    ///
    /// ```
    /// use ddf_sim::{Source, Zipf};
    ///
    /// let mut s = Zipf::new(1_000, 1.1, 1)?;
    /// assert!(s.next_id().unwrap() < 1_000);
    /// assert!(Zipf::new(1_000, 0.0, 1).is_err());
    /// # Ok::<(), ddf_core::ParamError>(())
    /// ```
    pub fn new(alphabet: u64, exponent: f64, seed: u64) -> Result<Self, ParamError> {
        ddf_param_positive("alphabet", alphabet)?;
        if !(exponent > 0.0 && exponent <= 20.0) {
            return Err(ParamError::new(
                "exponent",
                exponent,
                "a finite number in (0, 20]",
            ));
        }
        let mut z = Zipf {
            alphabet,
            exponent,
            rng: SplitMix64::new(seed),
            h_integral_x1: 0.0,
            h_integral_n: 0.0,
            s_const: 0.0,
        };
        z.h_integral_x1 = z.h_integral(1.5) - 1.0;
        z.h_integral_n = z.h_integral(alphabet as f64 + 0.5);
        z.s_const = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        Ok(z)
    }

    /// `x^-s`, the unnormalised density.
    fn h(&self, x: f64) -> f64 {
        (-self.exponent * x.ln()).exp()
    }

    /// `H(x) = ∫ x^-s = (x^(1-s) − 1)/(1 − s)`, or `ln x` at `s = 1`, computed stably.
    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        expm1_over_x((1.0 - self.exponent) * log_x) * log_x
    }

    /// The inverse of `H`.
    fn h_integral_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.exponent)).max(-1.0);
        (log1p_over_x(t) * x).exp()
    }
}

/// `(e^x − 1)/x`, 1 at 0.
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x / 2.0 * (1.0 + x / 3.0)
    }
}

/// `ln(1 + x)/x`, 1 at 0.
fn log1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x / 3.0)
    }
}

impl Source for Zipf {
    fn next_id(&mut self) -> Option<u64> {
        loop {
            let u =
                self.h_integral_n + self.rng.next_f64() * (self.h_integral_x1 - self.h_integral_n);
            let x = self.h_integral_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.alphabet as f64);
            if k - x <= self.s_const || u >= self.h_integral(k + 0.5) - self.h(k) {
                return Some(k as u64 - 1);
            }
        }
    }

    fn alphabet(&self) -> Option<u64> {
        Some(self.alphabet)
    }
}

/// The records (lines) of a text file, in order, as a finite stream. Equal
/// lines share an id; filters see the digest of the line's text.
#[derive(Debug, Clone, Default)]
pub struct Lines {
    texts: Vec<String>,
    order: Vec<u64>,
    next: usize,
}

impl Lines {
    /// Reads every line of the file at `path`.
    pub fn from_path(path: impl AsRef<Path>) -> io::Result<Self> {
        Self::from_reader(io::BufReader::new(std::fs::File::open(path)?))
    }

    /// Reads every line of `reader`.
    pub fn from_reader<R: BufRead>(reader: R) -> io::Result<Self> {
        let mut ids: HashMap<String, u64> = HashMap::new();
        let mut lines = Lines::default();
        for line in reader.lines() {
            let line = line?;
            let next_id = lines.texts.len() as u64;
            let id = *ids.entry(line).or_insert_with_key(|text| {
                lines.texts.push(text.clone());
                next_id
            });
            lines.order.push(id);
        }
        Ok(lines)
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Number of distinct records.
    pub fn distinct(&self) -> usize {
        self.texts.len()
    }
}

impl Source for Lines {
    fn next_id(&mut self) -> Option<u64> {
        let id = self.order.get(self.next).copied();
        self.next += 1;
        id
    }

    fn digest<S: BuildHasher>(&self, hasher: &S, id: u64) -> Digest {
        match self.texts.get(id as usize) {
            Some(text) => ddf_hash::digest(hasher, text.as_str()),
            None => ddf_hash::digest(hasher, &id),
        }
    }

    fn alphabet(&self) -> Option<u64> {
        Some(self.texts.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters() {
        assert_eq!(Uniform::new(0, 1).unwrap_err().param(), "alphabet");
        assert_eq!(Zipf::new(0, 1.0, 1).unwrap_err().param(), "alphabet");
        for s in [0.0, -1.0, f64::NAN, f64::INFINITY, 21.0] {
            assert_eq!(Zipf::new(10, s, 1).unwrap_err().param(), "exponent");
        }
    }

    #[test]
    fn uniform_stays_in_alphabet_and_is_seeded() {
        let mut a = Uniform::new(10, 3).unwrap();
        let mut b = Uniform::new(10, 3).unwrap();
        for _ in 0..1000 {
            let x = a.next_id().unwrap();
            assert!(x < 10);
            assert_eq!(Some(x), b.next_id());
        }
    }

    /// Rank frequencies match `1/(r^s·H_{U,s})` within 5 binomial sd.
    #[test]
    fn zipf_rank_frequencies() {
        for (u, s) in [(100u64, 1.0), (1000, 0.8), (50, 2.0), (1, 1.5)] {
            let mut z = Zipf::new(u, s, 11).unwrap();
            let n = 200_000u64;
            let mut counts = vec![0u64; u as usize];
            for _ in 0..n {
                counts[z.next_id().unwrap() as usize] += 1;
            }
            let norm: f64 = (1..=u).map(|r| (r as f64).powf(-s)).sum();
            for r in [1u64, 2, 5] {
                if r > u {
                    continue;
                }
                let p = (r as f64).powf(-s) / norm;
                let sd = (n as f64 * p * (1.0 - p)).sqrt().max(1.0);
                let got = counts[r as usize - 1] as f64;
                assert!(
                    (got - n as f64 * p).abs() < 5.0 * sd,
                    "U={u} s={s} rank {r}: {got} vs {}",
                    n as f64 * p
                );
            }
        }
    }

    #[test]
    fn lines_intern_records() {
        let text = "a\nb\na\nc\nb\n";
        let mut l = Lines::from_reader(text.as_bytes()).unwrap();
        assert_eq!((l.len(), l.distinct()), (5, 3));
        let ids: Vec<u64> = std::iter::from_fn(|| l.next_id()).collect();
        assert_eq!(ids, [0, 1, 0, 2, 1]);
        let h = ddf_hash::MixState;
        assert_eq!(l.digest(&h, 0), ddf_hash::digest(&h, "a"));
    }
}
