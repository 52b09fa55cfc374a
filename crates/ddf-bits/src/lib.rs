//! Hand-packed bit storage in `u64` words for the hot paths of `ddf` filters.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
// `unsafe` is denied everywhere but in `prefetch`, the one module that
// issues a CPU prefetch instruction, `pages`, the one that asks the kernel
// for huge pages, `lanes16`, the one that loads vector registers, and
// `isa`, the one that calls code compiled for the CPU found at run time.
#![deny(unsafe_code)]

mod atomic;
mod bit_array;
pub mod isa;
pub mod lanes16;
mod linear;
mod packed;
pub mod pages;
pub mod prefetch;
mod rows;
mod swar;

pub use atomic::{AtomicBitArray, AtomicWord, set_bit, set_bits};
pub use bit_array::BitArray;
pub use linear::{LinearTable, MAX_CELLS_LOG2, MaxLoad, Probe, TableCell};
pub use packed::{Iter, MAX_CELL_BITS, PackedArray};
pub use rows::{CellRows, RowProbe, RowRules, RowSearch, RowViolation, RowWrite};
pub use swar::FieldScan;

pub use ddf_param::ParamError;

/// Panics for an index out of range. Out of line and cold, so the hot
/// accessors that check indices keep no formatting code or stack frame.
#[cold]
#[inline(never)]
fn out_of_range(what: &str, index: u64, bound: u64, unit: &str) -> ! {
    panic!("{what} {index} out of range for {bound} {unit}")
}
