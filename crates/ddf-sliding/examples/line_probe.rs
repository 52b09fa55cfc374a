//! Scratch timing of the line layout against the default (branch only, not for main): `line_probe W` times both with the floor; `line_probe W line|default` runs 200,000 observes in `hot` for callgrind.
use ddf_hash::{Digest, KeyedSipHasher};
use ddf_sliding::{DuplicateFilter, Layout, Slack, SlidingBloom, Verdict};
use std::time::Instant;
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
#[inline(never)]
fn hot(f: &mut SlidingBloom, h: &KeyedSipHasher, from: u64, n: u64) -> u64 {
    (from..from + n)
        .map(|id| (f.observe(ddf_hash::digest(h, &id)) == Verdict::Duplicate) as u64)
        .sum()
}
fn main() {
    let w: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    if let Some(which) = std::env::args().nth(2) {
        let h = KeyedSipHasher::with_seed(3);
        let mut f = SlidingBloom::new(w, Slack::AtMost(w), 1e-3).unwrap();
        if which == "line" {
            f = f.with_layout(Layout::Line).unwrap();
        }
        if which == "line5" {
            f = SlidingBloom::with_generations(w, 5, 1e-3)
                .unwrap()
                .with_layout(Layout::Line)
                .unwrap();
        }
        hot(&mut f, &h, 1 << 40, 2 * w);
        println!("{}", hot(&mut f, &h, 0, 200_000));
        return;
    }
    let hasher = KeyedSipHasher::with_seed(3);
    let mut fs = [
        SlidingBloom::new(w, Slack::AtMost(w), 1e-3).unwrap(),
        SlidingBloom::with_generations(w, 5, 1e-3)
            .unwrap()
            .with_layout(Layout::Line)
            .unwrap(),
    ];
    for (i, f) in fs.iter_mut().enumerate() {
        for id in 0..2 * w {
            f.observe(ddf_hash::digest(&hasher, &(id + ((i as u64) << 40))));
        }
    }
    let mut floor = ddf_bits::pages::filled_vec((fs[1].memory_bits() / 512) as usize, [1u64; 8]);
    let mut next = 1u64 << 42;
    let mut t: [Vec<f64>; 5] = Default::default();
    let mut v: Vec<Verdict> = Vec::new();
    let ops = 100_000u64;
    for _ in 0..15 {
        let s = Instant::now();
        for id in next..next + ops {
            let d = ddf_hash::digest(&hasher, &id);
            let i = d.reduce(floor.len() as u64) as usize;
            floor[i][0] += 1;
        }
        next += ops;
        t[0].push(s.elapsed().as_nanos() as f64 / ops as f64);
        for (k, f) in fs.iter_mut().enumerate() {
            let s = Instant::now();
            for id in next..next + ops {
                f.observe(ddf_hash::digest(&hasher, &id));
            }
            next += ops;
            t[1 + k].push(s.elapsed().as_nanos() as f64 / ops as f64);
            let s = Instant::now();
            let mut ds: Vec<Digest> = Vec::with_capacity(64);
            for start in (next..next + ops).step_by(64) {
                ds.clear();
                ds.extend((start..start + 64).map(|id| ddf_hash::digest(&hasher, &id)));
                v.clear();
                f.observe_batch(&ds, &mut v);
            }
            next += ops;
            t[3 + k].push(s.elapsed().as_nanos() as f64 / ops as f64);
        }
    }
    let [fl, d1, l1, db, lb] = t.map(median);
    println!(
        "w={w} bits/item default {:.1} line {:.1}; floor {fl:.0}; one: default {d1:.0} ({:.2}x) line {l1:.0} ({:.2}x); batch: default {db:.0} ({:.2}x) line {lb:.0} ({:.2}x); line kicks {} stash {}",
        fs[0].memory_bits() as f64 / w as f64,
        fs[1].memory_bits() as f64 / w as f64,
        d1 / fl,
        l1 / fl,
        db / fl,
        lb / fl,
        fs[1].kicks(),
        fs[1].stash_len()
    );
}
