//! Streams, ground truth and error measurement for `ddf` filters.
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod arrivals;
mod eval;
mod parallel;
mod source;

pub use arrivals::Arrivals;
pub use eval::{Bucket, EvalConfig, Report, evaluate, evaluate_many, evaluate_timed};
pub use parallel::{run_seeds, threads};
pub use source::{Distinct, Lines, Source, Uniform, Zipf};
