//! Pins hash and derivation outputs: they are part of the snapshot format,
//! so a change here breaks every stored filter and must be deliberate.

use ddf_hash::{
    Digest, Fingerprinter, KeyedSipHasher, MixState, SplitMix64, ZeroPolicy, digest, mix64,
};

#[test]
fn keyed_siphash_outputs() {
    let h = KeyedSipHasher::with_seed(42);
    assert_eq!(
        h.key(),
        [
            60, 116, 158, 244, 190, 181, 143, 244, 37, 157, 182, 8, 99, 120, 87, 96
        ]
    );
    assert_eq!(digest(&h, &0u64).get(), 0x54cb_f3b7_f3ec_0f70);
    assert_eq!(digest(&h, "duplicate").get(), 0xd53a_b7ad_1432_f258);
}

#[test]
fn mixer_outputs() {
    assert_eq!(mix64(1), 0x5692_161d_100b_05e5);
    assert_eq!(digest(&MixState, &0u64).get(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(Digest::mixed(1), Digest::new(0x5692_161d_100b_05e5));
}

#[test]
fn derivations() {
    let d = Digest::new(0x0123_4567_89ab_cdef);
    assert_eq!(d.split(1000), (4, Digest::new(0x71c7_1c71_c71c_6d98)));
    let f = Fingerprinter::new(8, ZeroPolicy::Rehash).unwrap();
    assert_eq!(f.fingerprint(d), 1);
    assert_eq!(f.fingerprint(d.split(1000).1), 0x71);
    assert_eq!(f.fingerprint(Digest::new(0)), 226);
    assert_eq!(
        d.probes(1000).take(5).collect::<Vec<_>>(),
        [4, 560, 115, 671, 226]
    );
}

#[test]
fn generator_outputs() {
    let mut r = SplitMix64::new(42);
    assert_eq!(r.next_u64(), 0xbdd7_3226_2feb_6e95);
    assert_eq!(r.next_u64(), 0x28ef_e333_b266_f103);
}
