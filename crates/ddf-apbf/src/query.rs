//! Algorithm 1 of the APBF paper (§5.2): the query's walk over the
//! logical segments, looking for `k` consecutive matches, and which
//! segments an unseen item's walk visits, for the batch paths' hints.
//! Free functions over a `test` closure, so the plain and the blocked
//! filter and their lock-free forms share one walk.

/// `mask` (bits `0..n`, `n ≤ 64`) rotated right by `start < n` within `n`
/// bits: bit `j` of the result is bit `(start + j) mod n` of `mask`.
#[inline]
pub(crate) fn rotate_within(mask: u64, start: usize, n: usize) -> u64 {
    if start == 0 {
        mask
    } else {
        ((mask >> start) | (mask << (n - start))) & (u64::MAX >> (64 - n))
    }
}

/// Algorithm 1 of the APBF paper (§5.4) over logical segments `0..n`
/// (`n = k + l`), `test(i)` telling whether logical segment `i` matches:
/// start at `l`, count consecutive matches, and on a miss jump back `k`
/// segments keeping the matches just found. Returns the answer and the
/// number of segments tested. No segment is tested twice.
///
/// Which segment comes next depends on the last test. Written with
/// branches on purpose: the core predicts one and loads the segments
/// ahead on that path while a test waits for memory. A branch-free form
/// (the next index selected by `cmov`) made every test wait for the one
/// before: 1.7 µs instead of about 0.2 µs per present item at
/// `k = l = 15` on 65 Mbit, 30 cache misses in a row. Testing every
/// segment at once after two matches in a row (a present item's run)
/// was slower too: 510 against 234 ns per present item and 180 against
/// 77 per unseen one there (the Go comparison of `examples/profile`,
/// load 10), its 30 loads each missing a TLB of 4 KiB pages.
///
/// Callers hand it `#[inline(always)]` closures: a hot path compiled for a
/// [`ddf_bits::isa`] level keeps its instructions only in what is inlined
/// into it (see [`AgeCore::observe`]).
#[inline(always)]
pub(crate) fn algorithm_1(k: usize, n: usize, mut test: impl FnMut(usize) -> bool) -> (bool, u32) {
    // `i` ends below 0, which wraps here and fails `i < n`; it never
    // reaches `n` (a run never passes a segment tested before).
    let (mut i, mut p, mut c) = (n - k, 0usize, 0usize);
    let mut accesses = 0u32;
    while i < n {
        accesses += 1;
        if test(i) {
            c += 1;
            i += 1;
            if p + c == k {
                return (true, accesses);
            }
        } else {
            // A miss at `i` rules out every run through `i`: jump to
            // `i − k`, keeping the `c` matches just found above as `p`.
            i = i.wrapping_sub(k);
            p = c;
            c = 0;
        }
    }
    (false, accesses)
}

/// Calls `visit` with the physical segments an unseen item's query stops at
/// before the insertion's (logical `l`, `l − k`, … while at least `k`, from
/// physical segment `base` of `n`), each followed by the `chain` segments a
/// run of matches walks on to from it: what the batch paths hint beside the
/// insertion's `k`. The query's last stop, `l mod k`, is among those `k`.
#[inline(always)]
pub(crate) fn query_stops(
    k: usize,
    l: usize,
    n: usize,
    base: usize,
    chain: usize,
    mut visit: impl FnMut(usize),
) {
    let mut i = l;
    while i >= k {
        for j in i..(i + 1 + chain).min(n) {
            visit(if base + j >= n {
                base + j - n
            } else {
                base + j
            });
        }
        i -= k;
    }
}

/// [`algorithm_1`] over the logical segments of a state whose logical
/// segment 0 is physical segment `start` of `n`, the `shifts` logical
/// segments below counted empty (shifts not yet applied); `test(seg)`
/// tests physical segment `seg`.
#[inline(always)]
pub(crate) fn algorithm_1_from(
    k: usize,
    n: usize,
    start: usize,
    shifts: usize,
    mut test: impl FnMut(usize) -> bool,
) -> (bool, u32) {
    algorithm_1(
        k,
        n,
        #[inline(always)]
        |i| {
            let mut seg = start + i;
            if seg >= n {
                seg -= n;
            }
            i >= shifts && test(seg)
        },
    )
}
