//! Snapshots under test: round trips over random streams and cut points,
//! and hostile bytes (truncations, bit flips, envelope fields, boundary
//! values, random bodies behind a valid checksum) that must be rejected
//! without a panic.

use super::*;

/// A restored snapshot answers exactly as the original on a continued stream,
/// through bytes and through `std::io`.
///
/// A property test: random streams (seed and length), a snapshot at a random
/// point, and a continued stream of random length; at every continued item
/// the restored filters give the original's `contains` and `observe` answers,
/// and a snapshot of a restored filter restores again. A fixed case with the
/// configured stream length runs first.
pub fn snapshot_round_trips<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let len = c.stream_len;
    round_trip_case(&make, c, 7, len / 2, len - len / 2).unwrap_or_else(|e| panic!("{e}"));
    let mut runner = runner(8, c.seed ^ 0x5eed);
    check_property(
        &mut runner,
        "snapshot round trip",
        &(any::<u64>(), 0..=len, 1..=len / 2 + 1),
        |(salt, prefix, suffix)| round_trip_case(&make, c, salt, prefix, suffix),
    );
}

/// One round trip: `prefix` items, snapshot, `suffix` continued items.
fn round_trip_case<F, M>(
    make: &M,
    c: &Conformance,
    salt: u64,
    prefix: usize,
    suffix: usize,
) -> Result<(), TestCaseError>
where
    F: DuplicateFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let stream = c.clone().stream_len(prefix + suffix).stream(salt);
    let (first, second) = stream.split_at(prefix);
    let mut original = make();
    for &d in first {
        original.observe(d);
    }
    let bytes = original.to_bytes();
    let mut restored = F::from_bytes(&bytes)
        .map_err(|e| TestCaseError::fail(format!("own snapshot rejected: {e}")))?;
    prop_assert!(
        restored.to_bytes() == bytes,
        "re-encoding a restored filter changed the bytes"
    );
    let mut via_io = Vec::new();
    original
        .write_to(&mut via_io)
        .expect("writing to a Vec cannot fail");
    let mut streamed = F::read_from(via_io.as_slice())
        .map_err(|e| TestCaseError::fail(format!("own stream rejected: {e}")))?;
    prop_assert_eq!(restored.memory_bits(), original.memory_bits());
    for (i, &d) in second.iter().enumerate() {
        let seen = original.contains(d);
        prop_assert_eq!(
            restored.contains(d),
            seen,
            "restored contains differs at continued item {}",
            i
        );
        let v = original.observe(d);
        prop_assert_eq!(
            restored.observe(d),
            v,
            "restored filter differs at continued item {}",
            i
        );
        prop_assert_eq!(
            streamed.observe(d),
            v,
            "streamed filter differs at continued item {}",
            i
        );
    }
    let end = original.to_bytes();
    prop_assert!(
        restored.to_bytes() == end,
        "states diverged after the continued stream"
    );
    let again = F::from_bytes(&end)
        .map_err(|e| TestCaseError::fail(format!("snapshot of a restored filter: {e}")))?;
    prop_assert!(
        again.to_bytes() == end,
        "second round trip changed the bytes"
    );
    Ok(())
}

/// Values written over 8-, 4- and 2-byte fields of a body: the boundaries a
/// length, count or parameter field must survive.
const HOSTILE_WORDS: [u64; 10] = [
    0,
    1,
    2,
    0x7f,
    0xffff,
    u32::MAX as u64,
    1 << 40,
    (1 << 40) + 1,
    1 << 63,
    u64::MAX,
];

/// Decodes `bytes`; a filter that comes out must be usable: it observes a
/// stream, reports its memory, re-encodes to bytes that decode again, and
/// clears. Never a panic.
fn decode_and_exercise<F>(bytes: &[u8], probe: &[Digest]) -> Result<(), TestCaseError>
where
    F: DuplicateFilter + Snapshot + Debug,
{
    if let Ok(mut g) = F::from_bytes(bytes) {
        for &d in probe {
            g.observe(d);
        }
        let bits = g.memory_bits();
        let again = g.to_bytes();
        prop_assert!(
            F::from_bytes(&again).is_ok(),
            "a filter decoded from mutated bytes wrote a snapshot it cannot read"
        );
        g.clear();
        g.observe(probe.first().copied().unwrap_or_default());
        let _ = (bits, g.memory_bits());
    }
    Ok(())
}

/// Corrupt snapshots are rejected with an error, and bodies mutated behind a
/// recomputed checksum either fail to decode or decode to a usable filter:
/// never a panic.
///
/// Covers, on a valid snapshot of a used filter: every truncation (sampled),
/// random bit flips, a wrong kind / version / hasher in the envelope, body
/// truncation and extension behind a valid checksum, every 8-, 4- and 2-byte
/// field of the body overwritten with boundary values (lengths, counts and
/// parameters: 0, 1, 2^32 − 1, 2^40, 2^64 − 1, ...), random byte mutations
/// (a proptest), random bodies behind a valid envelope and random bytes.
pub fn decoder_rejects_hostile_bytes<F, M>(make: M, c: &Conformance)
where
    F: DuplicateFilter + Snapshot + Debug,
    M: Fn() -> F,
{
    let mut f = make();
    for d in c.stream(8).into_iter().take(c.stream_len / 4) {
        f.observe(d);
    }
    let bytes = f.to_bytes();
    let mut rng = SplitMix64::new(c.seed ^ 0xbad);
    for len in (0..bytes.len()).step_by(1 + bytes.len() / 200) {
        assert!(
            F::from_bytes(&bytes[..len]).is_err(),
            "truncation to {len} bytes accepted"
        );
        assert!(
            F::read_from(&bytes[..len]).is_err(),
            "truncated stream of {len} bytes accepted"
        );
    }
    for _ in 0..200 {
        let mut bad = bytes.clone();
        let at = rng.below(bad.len() as u64) as usize;
        bad[at] ^= 1 << rng.below(8);
        assert!(
            F::from_bytes(&bad).is_err(),
            "bit flip at byte {at} accepted"
        );
    }
    let env = snapshot::open(&bytes).expect("own snapshot opens");
    let reseal = |kind: u16, version: u16, hasher: u16, body: &[u8]| {
        snapshot::seal(kind, version, hasher, env.hasher_key, body)
    };
    for (kind, version, hasher) in [
        (env.kind ^ 1, env.version, env.hasher_id),
        (env.kind, 0, env.hasher_id),
        (env.kind, env.version + 1, env.hasher_id),
        (env.kind, env.version, env.hasher_id ^ 1),
    ] {
        assert!(
            F::from_bytes(&reseal(kind, version, hasher, env.body)).is_err(),
            "envelope with kind {kind:#x}, version {version}, hasher {hasher} accepted"
        );
    }
    let body = env.body;
    let probe: Vec<Digest> = c.stream(9).into_iter().take(200).collect();
    for len in (0..body.len()).step_by(1 + body.len() / 100) {
        assert!(
            F::from_bytes(&reseal(env.kind, env.version, env.hasher_id, &body[..len])).is_err(),
            "body truncated to {len} of {} bytes accepted",
            body.len()
        );
    }
    let mut longer = body.to_vec();
    longer.push(0);
    assert!(
        F::from_bytes(&reseal(env.kind, env.version, env.hasher_id, &longer)).is_err(),
        "body with a trailing byte accepted"
    );
    // Every field position near the front (where parameters, clocks and
    // length prefixes live), then a sample of the rest.
    let front = body.len().min(96);
    let offsets: Vec<usize> = (0..front)
        .chain((0..64).map(|_| rng.below(body.len().max(1) as u64) as usize))
        .collect();
    for &at in &offsets {
        for width in [8usize, 4, 2] {
            if at + width > body.len() {
                continue;
            }
            for v in HOSTILE_WORDS {
                let mut bad = body.to_vec();
                bad[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
                let sealed = reseal(env.kind, env.version, env.hasher_id, &bad);
                decode_and_exercise::<F>(&sealed, &probe[..20])
                    .unwrap_or_else(|e| panic!("{width}-byte field at {at} = {v:#x}: {e}"));
            }
        }
    }
    let mut runner = runner(300, c.seed ^ 0xf1e1d);
    check_property(
        &mut runner,
        "mutated body",
        &(
            any::<bool>(),
            proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        ),
        |(front_only, edits)| {
            let mut bad = body.to_vec();
            if bad.is_empty() {
                return Ok(());
            }
            let span = if front_only {
                bad.len().min(64)
            } else {
                bad.len()
            };
            for (at, b) in edits {
                bad[at % span] = b;
            }
            decode_and_exercise::<F>(&reseal(env.kind, env.version, env.hasher_id, &bad), &probe)
        },
    );
    check_property(
        &mut runner,
        "random body behind a valid envelope",
        &proptest::collection::vec(any::<u8>(), 0..512),
        |junk| {
            decode_and_exercise::<F>(&reseal(env.kind, env.version, env.hasher_id, &junk), &probe)
        },
    );
    for _ in 0..100 {
        let len = rng.below(256) as usize;
        let junk: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        assert!(F::from_bytes(&junk).is_err(), "random bytes accepted");
    }
}
