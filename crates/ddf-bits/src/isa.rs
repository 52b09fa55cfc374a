//! Hot loops compiled twice, for the target's baseline and for the
//! instructions of the machine they run on, chosen once at run time.
//!
//! A release build for `x86_64` targets the baseline of 2003: no `popcnt`
//! instruction (a bit count is a dozen instructions), no `tzcnt`, no
//! three-operand shifts, 128-bit vectors. Nearly every x86-64 server of
//! the last decade has the x86-64-v3 level (AVX2, BMI1, BMI2, LZCNT,
//! POPCNT). A probe of the sliding filter's line buckets counts and finds
//! bits in every step, and at that level it runs about a fifth fewer
//! instructions; the blocked APBF's shifts and masks, a third fewer.
//!
//! The mechanism: the caller writes its loop as a [`Kernel`] whose
//! [`run`](Kernel::run) is `#[inline(always)]`, and calls
//! [`Isa::run`]. On a machine with the level, `Isa::run` calls a copy of
//! the kernel compiled with those instructions enabled; everything the
//! kernel inlines is compiled for them too. Elsewhere it calls the kernel
//! as it is. Both copies are the same Rust code, so they give the same
//! results; only the instructions differ. An [`Isa`] value that names the
//! level exists only where the machine was found to have it, which is what
//! makes calling the enabled copy sound.
//!
//! This is the fourth module of `ddf-bits` that allows `unsafe`, for that
//! one call, with its `// SAFETY:` comment.
#![allow(unsafe_code)]

use std::fmt;

/// A loop to run under [`Isa::run`]. Implement `run` with
/// `#[inline(always)]`, so that it is compiled into each copy.
pub trait Kernel {
    /// What the loop returns.
    type Output;

    /// Runs the loop.
    fn run(self) -> Self::Output;
}

/// The instruction set a [`Kernel`] runs with: the target's baseline, or
/// one found on this machine at run time.
///
/// Only [`Isa::detect`] can name a level above the baseline, and only on a
/// machine that has it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Isa(Level);

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Level {
    Baseline,
    #[cfg(target_arch = "x86_64")]
    X86_64V3,
}

impl Isa {
    /// The target's baseline: what the compiler assumes everywhere.
    pub const BASELINE: Isa = Isa(Level::Baseline);

    /// The best level this machine has. The standard library caches what
    /// the CPU reports, so a call costs a few loads.
    #[inline]
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("popcnt")
        {
            return Isa(Level::X86_64V3);
        }
        Isa::BASELINE
    }

    /// Whether this is the target's baseline.
    pub fn is_baseline(self) -> bool {
        self.0 == Level::Baseline
    }

    /// Runs `kernel` compiled for this level: a call of one of its two
    /// copies.
    #[inline(always)]
    pub fn run<K: Kernel>(self, kernel: K) -> K::Output {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `run_x86_64_v3` may only run where the CPU has the
            // features it enables. `Level::X86_64V3` is private and made
            // only by `detect`, after the CPU reported every one of them.
            Level::X86_64V3 => unsafe { run_x86_64_v3(kernel) },
            Level::Baseline => run_baseline(kernel),
        }
    }
}

/// `kernel` compiled for the baseline, out of line like the other copy, so
/// that the caller holds two calls and not a whole kernel.
#[inline(never)]
fn run_baseline<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

/// `kernel` compiled with the x86-64-v3 features (the `run` it inlines,
/// and all that inlines into it).
///
/// # Safety
///
/// The CPU must have every feature enabled here.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_x86_64_v3<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

impl fmt::Debug for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Level::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Level::X86_64V3 => "x86-64-v3",
        })
    }
}

impl Default for Isa {
    /// [`Isa::detect`].
    fn default() -> Isa {
        Isa::detect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bits set in each word, summed: a loop whose instructions differ
    /// between the levels (a bit count is one instruction at v3).
    struct CountBits<'a>(&'a [u64]);

    impl Kernel for CountBits<'_> {
        type Output = u64;
        #[inline(always)]
        fn run(self) -> u64 {
            self.0.iter().map(|w| u64::from(w.count_ones())).sum()
        }
    }

    #[test]
    fn every_level_gives_the_baselines_answer() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let words: Vec<u64> = (0..10_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        let expected: u64 = words.iter().map(|w| u64::from(w.count_ones())).sum();
        for isa in [Isa::BASELINE, Isa::detect()] {
            assert_eq!(isa.run(CountBits(&words)), expected, "{isa:?}");
        }
    }

    #[test]
    fn detection_is_stable_and_named() {
        assert_eq!(Isa::detect(), Isa::detect());
        assert!(Isa::BASELINE.is_baseline());
        assert_eq!(format!("{:?}", Isa::BASELINE), "baseline");
        assert!(matches!(
            format!("{:?}", Isa::detect()).as_str(),
            "baseline" | "x86-64-v3"
        ));
    }
}
