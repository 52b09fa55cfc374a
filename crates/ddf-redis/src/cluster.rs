//! Spreading one logical window over a Redis Cluster: a client-side split.
//!
//! A Redis Cluster keeps each key on one shard, so a single `DDF.*` key is
//! served by one primary. Two ways to spread a stream:
//!
//! - **Many keys**, one per tenant (or per topic): each key is its own
//!   window, and the cluster places keys by their hash slot as usual.
//!   Nothing here is needed.
//! - **One logical window split into `N` keys** by item hash, each key
//!   carrying its own hash tag so the keys land on different slots (and,
//!   with slots spread evenly, on different primaries). [`ShardedWindow`]
//!   names the keys and routes each item, so every occurrence of an item
//!   goes to the same key and duplicates meet.
//!
//! What the split does to the window:
//!
//! - **A time window is unchanged.** Each shard key keeps the items it saw
//!   in the last `t` ms; an item's occurrences all go to one key, so "seen in
//!   the last `t` ms" has the same answer as on one big key. Reserve each
//!   shard with `WITHIN t` and `CAPACITY c / N` (its share of the arrivals).
//! - **A count window becomes per shard.** `WINDOW w` on each of `N` keys
//!   remembers the last `w` items *routed to that key*, which is about the
//!   last `N·w` items of the whole stream, but with a random edge: a shard
//!   that received more than its share forgets sooner. For a logical window
//!   of `W` items reserve each shard with `WINDOW W/N` plus headroom for
//!   the binomial spread of the routing (about `3·sqrt(W/N)` for three
//!   standard deviations), knowing the edge is per shard, not global.
//!
//! Routing uses SipHash under a fixed, public key (all clients must agree
//! on it), independent of each filter's secret key; an adversary who knows
//! the routing can overload one shard, but cannot make a filter err.

use ddf::{KeyedSipHasher, digest};
use std::hash::Hash;

/// The number of hash slots of a Redis Cluster.
pub const SLOTS: u16 = 16384;

/// The key of the fixed routing hash ([`ShardedWindow::shard_of`]).
const ROUTING_SEED: u64 = 0xddf0_c105_5a4d_0001;

/// CRC16-XMODEM (polynomial 0x1021, initial value 0), the checksum Redis
/// Cluster maps keys to slots with.
pub fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The hash slot of `key`: the CRC16 of its hash tag (the bytes between
/// the first `{` and the next `}`, when not empty) or of the whole key,
/// modulo 16384.
pub fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        rest.iter()
            .position(|&b| b == b'}')
            .filter(|&close| close > 0)
            .map(|close| &rest[..close])
    });
    crc16(tagged.unwrap_or(key)) % SLOTS
}

/// `N` keys that together hold one logical window, and the routing of
/// items to them.
///
/// Key `i` is `base{tag_i}`, where `tag_i` is the first of `s<i>`, `s<i>-1`,
/// `s<i>-2`, … whose slot falls in the `i`-th of `N` equal slot ranges: on a
/// cluster created with evenly spread slots (what `redis-cli --cluster
/// create` does), the keys land on different primaries, as evenly as the
/// ranges allow.
#[derive(Debug, Clone)]
pub struct ShardedWindow {
    keys: Vec<String>,
    router: KeyedSipHasher,
}

impl ShardedWindow {
    /// The split of the logical window `base` into `shards` keys (1 to
    /// 16384).
    pub fn new(base: &str, shards: u16) -> Result<Self, ddf::ParamError> {
        if !(1..=SLOTS).contains(&shards) {
            return Err(ddf::ParamError::new("shards", shards, "1 to 16384 shards"));
        }
        let n = u32::from(shards);
        let keys = (0..n)
            .map(|i| {
                let lo = i * u32::from(SLOTS) / n;
                let hi = (i + 1) * u32::from(SLOTS) / n;
                // A range of at least one slot is hit within a few thousand
                // tries (each tag's slot is close to uniform).
                (0u32..)
                    .map(|j| {
                        if j == 0 {
                            format!("s{i}")
                        } else {
                            format!("s{i}-{j}")
                        }
                    })
                    .find(|tag| (lo..hi).contains(&u32::from(crc16(tag.as_bytes()) % SLOTS)))
                    .map(|tag| format!("{base}{{{tag}}}"))
                    .unwrap_or_default()
            })
            .collect();
        Ok(ShardedWindow {
            keys,
            router: KeyedSipHasher::with_seed(ROUTING_SEED),
        })
    }

    /// The keys, shard by shard: reserve each one (`DDF.RESERVE`).
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The shard `item` belongs to: every occurrence goes to the same one.
    pub fn shard_of<T: Hash + ?Sized>(&self, item: &T) -> usize {
        // `reduce` maps the digest onto 0..N without a modulo bias.
        digest(&self.router, item).reduce(self.keys.len() as u64) as usize
    }

    /// The key `item` belongs to.
    pub fn key_of<T: Hash + ?Sized>(&self, item: &T) -> &str {
        &self.keys[self.shard_of(item)]
    }

    /// Groups `items` by shard: for each shard, the positions (in `items`)
    /// of its items, in order. Send one `DDF.OBSERVE` per non-empty group
    /// and put the answers back at these positions.
    pub fn split<T: Hash>(&self, items: &[T]) -> Vec<Vec<usize>> {
        let mut groups = vec![Vec::new(); self.keys.len()];
        for (at, item) in items.iter().enumerate() {
            groups[self.shard_of(item)].push(at);
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_match_the_cluster_specification() {
        // The example of the Redis Cluster specification.
        assert_eq!(crc16(b"123456789"), 0x31c3);
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
        // An empty tag does not count: the whole key is hashed.
        assert_eq!(key_slot(b"foo{}{bar}"), crc16(b"foo{}{bar}") % SLOTS);
    }

    #[test]
    fn shard_keys_fall_in_their_slot_ranges_and_routing_is_stable() {
        let split = ShardedWindow::new("events", 3).expect("3 shards");
        for (i, key) in split.keys().iter().enumerate() {
            let slot = u32::from(key_slot(key.as_bytes()));
            assert!(
                slot * 3 / u32::from(SLOTS) == i as u32,
                "{key} in slot {slot}"
            );
        }
        let items: Vec<String> = (0..3000).map(|i| format!("item-{i}")).collect();
        let groups = split.split(&items);
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), items.len());
        for g in &groups {
            // Binomial(3000, 1/3): mean 1000, sd 26; 6 sd either way.
            assert!((844..=1156).contains(&g.len()), "{}", g.len());
        }
        let again = ShardedWindow::new("events", 3).expect("3 shards");
        assert!(items.iter().all(|x| split.key_of(x) == again.key_of(x)));
        assert!(ShardedWindow::new("events", 0).is_err());
    }
}
