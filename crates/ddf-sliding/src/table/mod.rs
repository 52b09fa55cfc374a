//! The dictionary of §2.2: a two-choice table of (remainder, generation tag) cells with lazy deletion, an incremental scan and an exact stash.

use crate::buckets::Buckets;
use crate::lines::LineClock;
use crate::plan::{BEYOND_CACHE_BITS, CELLS_PER_BUCKET, Layout, Plan};
use ddf_bits::CellRows;
use ddf_hash::{Digest, SplitMix64};
use std::collections::BTreeMap;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// Evaluates `$body` with the constants `$s` set to the lines' tag width
/// (1 to 8; a line holds at most 8 tag planes) and `$w` to whether they
/// are wide ([`LineShape`](crate::lines::LineShape)), so that each shape gets a path compiled with
/// its own masks.
macro_rules! per_line_shape {
    ($table:expr, $s:ident, $w:ident => $body:expr) => {
        if $table.wide_lines {
            per_line_shape!(@ true, $table.tag_bits, $s, $w => $body)
        } else {
            per_line_shape!(@ false, $table.tag_bits, $s, $w => $body)
        }
    };
    (@ $wide:literal, $bits:expr, $s:ident, $w:ident => $body:expr) => {{
        const $w: bool = $wide;
        match $bits {
            1 => per_line_shape!(@@ 1, $s => $body),
            2 => per_line_shape!(@@ 2, $s => $body),
            3 => per_line_shape!(@@ 3, $s => $body),
            4 => per_line_shape!(@@ 4, $s => $body),
            5 => per_line_shape!(@@ 5, $s => $body),
            6 => per_line_shape!(@@ 6, $s => $body),
            7 => per_line_shape!(@@ 7, $s => $body),
            _ => per_line_shape!(@@ 8, $s => $body),
        }
    }};
    (@@ $width:literal, $s:ident => $body:expr) => {{
        const $s: u32 = $width;
        $body
    }};
}

mod lines;

/// Relocations an insertion tries before it parks an entry in the stash.
pub const MAX_KICKS: u32 = 500;

/// Entries the stash holds at most; an entry that finds no room when the
/// stash is full is dropped and counted
/// ([`SlidingBloom::stash_overflows`](crate::SlidingBloom::stash_overflows)).
///
/// At the design load the stash stays empty (measured, `sliding/stash-stays-empty`);
/// its cells are reserved and counted in `memory_bits` all the same, so
/// memory is fixed at construction whatever relocation does.
pub const STASH_CAPACITY: usize = 16;

/// Multiplier of the remainder hash that picks the alternate bucket (the
/// 64-bit golden ratio: odd, so distinct remainders get distinct products).
const ALT_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// Where an item's entry may live: its two buckets and its remainder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Slot {
    pub(crate) first: u64,
    pub(crate) second: u64,
    pub(crate) remainder: u32,
}

/// The identity of an entry: the lower bucket of its pair and its remainder.
/// Two items share an entry exactly when their keys are equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EntryKey {
    /// The lower of the two buckets the entry may occupy.
    pub bucket: u64,
    /// The stored remainder (never 0).
    pub remainder: u32,
}

/// The generation clock as the table sees it: the current tag, and the
/// bounds of the active tags broadcast to every lane of a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ages {
    /// Tag of the current generation, in `0..modulus`.
    pub(crate) current: u32,
    /// `2^s − 1`: ages are counted modulo `2^s`.
    pub(crate) age_mask: u32,
    /// `c`: entries of age at most this are active.
    pub(crate) max_active_age: u32,
    /// `current` in every lane, with each lane's guard bit (bit `s`) set:
    /// what [`Lanes::free_and_stale`] subtracts the tags from.
    current_lanes: u128,
    /// `c` in every lane, with each lane's top bit set: what the ages are
    /// subtracted from.
    max_age_lanes: u128,
    /// The same clock for line buckets.
    pub(crate) line: LineClock,
}

impl Ages {
    /// Generations since `tag` was current, modulo `2^s`. Exact for every
    /// entry in the table, since entries are deleted before their age reaches
    /// `2^s` (see [`Table::scan`]).
    #[inline]
    pub(crate) fn age(&self, tag: u32) -> u32 {
        self.current.wrapping_sub(tag) & self.age_mask
    }

    #[inline]
    pub(crate) fn is_active(&self, tag: u32) -> bool {
        self.age(tag) <= self.max_active_age
    }

    /// `current` and `c` in every lane of a `W`, with their guard bits.
    #[inline]
    fn lanes<W: Word>(&self) -> (W, W) {
        (
            W::truncate(self.current_lanes),
            W::truncate(self.max_age_lanes),
        )
    }
}

/// `B` buckets of `b` cells, each cell `remainder << s | tag` (`s` tag
/// bits), 0 for empty; entries that find no cell go to an exact stash.
///
/// An item with digest `h` has buckets `b₁ = ⌊h·B/2^64⌋` and
/// `b₂ = (H(ρ) − b₁) mod B`, where `ρ` is an `r`-bit non-zero remainder from
/// the rest of `h` and `H(ρ)` a hash of it. `b ↦ (H(ρ) − b) mod B` is an
/// involution, so an entry can move between its two buckets knowing only
/// where it is and its remainder, for any `B`. At most one entry per key
/// `({b₁, b₂}, ρ)` exists, in the table or in the stash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    cells: Buckets,
    buckets: u64,
    /// Cells per bucket `b`.
    per_bucket: u32,
    /// Lane constants for buckets read as `u128` (any width).
    wide: Lanes<u128>,
    /// The same for `u64`, used when `narrow`.
    narrow: Lanes<u64>,
    /// A bucket fits in 64 bits: the hot paths take `u64` lanes.
    narrow_rows: bool,
    /// Buckets are cache lines ([`Layout::Line`]): the hot paths are the
    /// line paths of `lines.rs`.
    line_rows: bool,
    /// The lines are wide: remainders beyond 16 bits
    /// ([`LineShape`](crate::lines::LineShape)).
    wide_lines: bool,
    tag_bits: u32,
    tag_mask: u32,
    /// Entries the table could not place: key to tag.
    stash: BTreeMap<EntryKey, u32>,
    /// Non-empty cells.
    occupied: u64,
    /// The next bucket the scan visits.
    scan: u64,
    /// Relocation moves since construction, `clear` or restore (a diagnostic).
    kicks: u64,
    /// Whether relocation requests the lines it may read before it reads
    /// them: only tables beyond the caches ([`BEYOND_CACHE_BITS`]), where
    /// the misses overlap; in the caches the requests are only instructions.
    relocation_prefetch: bool,
    /// Entries dropped because the stash was full (since construction,
    /// `clear` or restore): each may be a false negative.
    stash_overflows: u64,
}

/// The word a bucket is stored in and read into for its SWAR operations:
/// `u64` when four cells fit in one (`4·(r + s) ≤ 64`, cells of at most
/// 16 bits), `u128` otherwise ([`Buckets`]). Every lane operation on a
/// `u128` costs two or three machine instructions, so narrow buckets take
/// the `u64` path and halve the work of each probe.
pub(crate) trait Word:
    Copy
    + Eq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const ZERO: Self;
    /// The low bits of `x` (lane constants are built in `u128`).
    fn truncate(x: u128) -> Self;
    fn wrapping_sub(self, other: Self) -> Self;
    fn wrapping_add(self, other: Self) -> Self;
    fn wrapping_mul(self, other: Self) -> Self;
    fn wrapping_neg(self) -> Self;
    fn trailing_zeros(self) -> u32;
    /// The low 32 bits.
    fn low_u32(self) -> u32;
    /// `x` in the low bits.
    fn from_u32(x: u32) -> Self;
    /// Bucket `r` of `cells`.
    fn read(cells: &Buckets, r: u64) -> Self;
    /// Overwrites bucket `r` of `cells` with `row`.
    fn write(cells: &mut Buckets, r: u64, row: Self);
    /// The table's lane constants for this word.
    fn lanes(table: &Table) -> &Lanes<Self>;
}

macro_rules! impl_word {
    ($t:ty, $field:ident, $read:ident, $write:ident) => {
        impl Word for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn truncate(x: u128) -> Self {
                x as $t
            }
            #[inline(always)]
            fn wrapping_sub(self, other: Self) -> Self {
                <$t>::wrapping_sub(self, other)
            }
            #[inline(always)]
            fn wrapping_add(self, other: Self) -> Self {
                <$t>::wrapping_add(self, other)
            }
            #[inline(always)]
            fn wrapping_mul(self, other: Self) -> Self {
                <$t>::wrapping_mul(self, other)
            }
            #[inline(always)]
            fn wrapping_neg(self) -> Self {
                <$t>::wrapping_neg(self)
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline(always)]
            fn low_u32(self) -> u32 {
                self as u32
            }
            #[inline(always)]
            fn from_u32(x: u32) -> Self {
                x as $t
            }
            #[inline(always)]
            fn read(cells: &Buckets, r: u64) -> Self {
                cells.$read(r)
            }
            #[inline(always)]
            fn write(cells: &mut Buckets, r: u64, row: Self) {
                cells.$write(r, row);
            }
            #[inline(always)]
            fn lanes(table: &Table) -> &Lanes<Self> {
                &table.$field
            }
        }
    };
}

impl_word!(u64, narrow, narrow, set_narrow);
impl_word!(u128, wide, wide, set_wide);

/// SWAR constants for a bucket of `b` cells read as one [`Word`]: every
/// cell is a lane of `r + s` bits, the tag in its low `s` bits; the word's
/// bits above the last lane belong to no lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lanes<W> {
    /// Cell width `r + s`.
    width: u32,
    /// Lanes `b`.
    cells: u32,
    /// Tag width `s`.
    tag_bits: u32,
    /// The remainder bits of every cell.
    remainders: W,
    /// The low `width` bits.
    cell_mask: u32,
    /// Bit 0 of every cell.
    lows: W,
    /// The top bit of every cell.
    highs: W,
    /// The low `width − 1` bits of every cell.
    below_highs: W,
    /// The tag bits of every cell.
    tags: W,
    /// Bit `s` of every cell, just above the tag (the remainder's lowest bit,
    /// free to act as a borrow guard once the tags are isolated).
    guards: W,
}

impl Lanes<u128> {
    fn new(width: u32, tag_bits: u32, cells: u32) -> Lanes<u128> {
        let lows = (0..cells).fold(0u128, |acc, j| acc | 1 << (j * width));
        let highs = lows << (width - 1);
        Lanes {
            width,
            cells,
            tag_bits,
            cell_mask: (((1u64 << width) - 1) as u32),
            lows,
            highs,
            below_highs: highs - lows,
            tags: ((1u128 << tag_bits) - 1) * lows,
            remainders: (((1u128 << (width - tag_bits)) - 1) << tag_bits) * lows,
            guards: lows << tag_bits,
        }
    }

    /// The same constants in a narrower word (meaningful when the bucket
    /// fits in it).
    fn narrowed<W: Word>(&self) -> Lanes<W> {
        Lanes {
            width: self.width,
            cells: self.cells,
            tag_bits: self.tag_bits,
            remainders: W::truncate(self.remainders),
            cell_mask: self.cell_mask,
            lows: W::truncate(self.lows),
            highs: W::truncate(self.highs),
            below_highs: W::truncate(self.below_highs),
            tags: W::truncate(self.tags),
            guards: W::truncate(self.guards),
        }
    }
}

impl<W: Word> Lanes<W> {
    /// `remainder` in the remainder field of every lane: the value
    /// [`find`](Self::find) looks for.
    #[inline]
    fn wanted(&self, remainder: u32) -> W {
        W::truncate(u128::from(remainder << self.tag_bits)).wrapping_mul(self.lows)
    }

    /// The first bit of the lane that holds the lowest flag of `flags`
    /// (non-zero, flags at the top bit of their lane): a shift, so that the
    /// cell is read and written without dividing by the width.
    #[inline]
    fn lowest_at(&self, flags: W) -> u32 {
        flags.trailing_zeros() + 1 - self.width
    }

    /// How many lanes `flags` flags (at their top bit). One multiplication
    /// sums the lanes into the top one: the build targets baseline x86-64,
    /// whose `count_ones` is a dozen instructions. The sum is at most `b`,
    /// which the plan keeps below `2^(r + s)`, so it fits the lane.
    #[inline]
    fn count(&self, flags: W) -> u32 {
        let ones = flags >> (self.width - 1);
        (ones.wrapping_mul(self.lows) >> ((self.cells - 1) * self.width)).low_u32() & self.cell_mask
    }

    /// Cell `j` of a bucket.
    #[inline]
    fn cell(&self, bucket: W, j: u32) -> u32 {
        self.cell_at(bucket, j * self.width)
    }

    /// The cell of a bucket whose lane starts at bit `at`.
    #[inline]
    fn cell_at(&self, bucket: W, at: u32) -> u32 {
        (bucket >> at).low_u32() & self.cell_mask
    }

    /// `bucket` with `value` in the cell whose lane starts at bit `at`: the
    /// new bucket is made in a register and written whole, so a write costs
    /// no second index computation.
    #[inline]
    fn with_cell_at(&self, bucket: W, at: u32, value: u32) -> W {
        (bucket & !(W::from_u32(self.cell_mask) << at)) | (W::from_u32(value) << at)
    }

    /// The first bit of the first cell of `bucket` whose remainder is the
    /// one in every lane of `want`: XOR turns matching cells into zero
    /// lanes, and the borrow trick flags the lowest zero lane exactly.
    #[inline]
    fn find(&self, bucket: W, want: W) -> Option<u32> {
        let y = (bucket ^ want) & self.remainders;
        let hits = y.wrapping_sub(self.lows) & !y & self.highs;
        (hits != W::ZERO).then(|| self.lowest_at(hits))
    }

    /// The cells of `bucket` that are empty or stale (`free`) and those that
    /// are stale (`stale`), flagged at the top bit of their lane.
    ///
    /// An entry is active when its age, `current − tag` modulo `2^s`, is at
    /// most `c`. With the tags isolated and a guard bit above each,
    /// `guard + current − tag` never borrows from the next lane and its low
    /// `s` bits are the age; `top + c − age` then keeps the lane's top bit
    /// exactly when `age ≤ c`. All four lanes in two subtractions, with no
    /// branch and no shift, and the flags land where the occupancy test puts
    /// its own.
    #[inline]
    fn free_and_stale(&self, bucket: W, ages: &Ages) -> (W, W) {
        let (current, max_age) = ages.lanes::<W>();
        let tags = bucket & self.tags;
        let age = current.wrapping_sub(tags) & self.tags;
        let active = max_age.wrapping_sub(age) & self.highs;
        // A cell is occupied when any bit is set (entries have a non-zero
        // remainder): the low bits carry into the top one.
        let occupied =
            ((bucket & self.below_highs).wrapping_add(self.below_highs) | bucket) & self.highs;
        let stale = occupied & !active;
        ((self.highs & !occupied) | stale, stale)
    }
}

impl Table {
    pub(crate) fn new(plan: &Plan) -> Table {
        let cell_bits = plan.remainder_bits + plan.tag_bits;
        let cells = match plan.layout {
            Layout::Aligned => Buckets::aligned(plan.buckets, plan.cells_per_bucket, cell_bits),
            Layout::Line => Buckets::lines(
                plan.buckets,
                plan.line_shape()
                    .expect("the plan checked the tags fit a line"),
            ),
            Layout::Packed => Buckets::packed(
                // The plan checked the size against the state ceiling.
                CellRows::new(plan.buckets, CELLS_PER_BUCKET, cell_bits)
                    .expect("the plan checked the table size"),
            ),
        };
        // Line buckets are not word lanes; their lane constants, which only
        // the clock's broadcasts read, cover the cells that fit 128 bits.
        let lane_cells = plan.cells_per_bucket.min(128 / cell_bits);
        let wide = Lanes::new(cell_bits, plan.tag_bits, lane_cells);
        Table {
            narrow_rows: cells.is_narrow(),
            line_rows: plan.layout == Layout::Line,
            wide_lines: plan.line_shape().is_some_and(|s| s.is_wide()),
            cells,
            buckets: plan.buckets,
            per_bucket: plan.cells_per_bucket,
            wide,
            narrow: wide.narrowed(),
            tag_bits: plan.tag_bits,
            tag_mask: (1 << plan.tag_bits) - 1,
            stash: BTreeMap::new(),
            occupied: 0,
            scan: 0,
            kicks: 0,
            relocation_prefetch: plan.memory_bits() >= BEYOND_CACHE_BITS,
            stash_overflows: 0,
        }
    }

    /// The clock at tag `current` of `2^s`, with its lane broadcasts.
    pub(crate) fn ages(&self, current: u32, modulus: u32, max_active_age: u32) -> Ages {
        let age_mask = modulus - 1;
        Ages {
            current,
            age_mask,
            max_active_age,
            current_lanes: (u128::from(current) * self.wide.lows) | self.wide.guards,
            max_age_lanes: (u128::from(max_active_age) * self.wide.lows) | self.wide.highs,
            line: LineClock::new(current, max_active_age, self.tag_bits),
        }
    }

    /// Rebuilds a table from snapshot parts; the caller validates them.
    pub(crate) fn restore(plan: &Plan, cells: Buckets, scan: u64) -> Table {
        let mut t = Table::new(plan);
        t.occupied = cells.occupied();
        t.cells = cells;
        t.scan = scan;
        t
    }

    /// The two buckets of a remainder's pair, starting from either of them.
    #[inline]
    pub(crate) fn alternate(&self, bucket: u64, remainder: u32) -> u64 {
        let h = Digest::new(u64::from(remainder).wrapping_mul(ALT_MULTIPLIER)).reduce(self.buckets);
        if h >= bucket {
            h - bucket
        } else {
            h + self.buckets - bucket
        }
    }

    /// The slot of an item: first bucket, remainder and second bucket.
    #[inline]
    pub(crate) fn slot(&self, first: u64, remainder: u32) -> Slot {
        Slot {
            first,
            second: self.alternate(first, remainder),
            remainder,
        }
    }

    #[inline]
    fn key(&self, bucket: u64, remainder: u32) -> EntryKey {
        EntryKey {
            bucket: bucket.min(self.alternate(bucket, remainder)),
            remainder,
        }
    }

    /// The tag of `slot`'s entry in the stash, if it is parked there.
    #[inline]
    fn stash_tag(&self, slot: Slot) -> Option<u32> {
        if self.stash.is_empty() {
            return None;
        }
        self.stash
            .get(&self.key(slot.first, slot.remainder))
            .copied()
    }

    /// Gives `slot`'s parked entry, if there is one, the tag `tag`; returns
    /// its old tag.
    #[inline]
    fn refresh_stash(&mut self, slot: Slot, tag: u32) -> Option<u32> {
        if self.stash.is_empty() {
            return None;
        }
        let key = self.key(slot.first, slot.remainder);
        let parked = self.stash.get_mut(&key)?;
        Some(std::mem::replace(parked, tag))
    }

    /// Prefetches both buckets of `slot` (a cache hint for batches).
    #[inline]
    pub(crate) fn prefetch(&self, slot: Slot) {
        self.cells.prefetch(slot.first);
        self.cells.prefetch(slot.second);
    }

    /// Whether the buckets are cache lines ([`Layout::Line`]).
    #[inline]
    pub(crate) fn has_lines(&self) -> bool {
        self.line_rows
    }

    /// The tag of `slot`'s entry, active or stale, if it has one.
    #[inline]
    pub(crate) fn lookup(&self, slot: Slot) -> Option<u32> {
        if self.line_rows {
            self.lookup_line(slot)
        } else if self.narrow_rows {
            self.lookup_in::<u64>(slot)
        } else {
            self.lookup_in::<u128>(slot)
        }
    }

    #[inline]
    fn lookup_in<W: Word>(&self, slot: Slot) -> Option<u32> {
        let lanes = *W::lanes(self);
        let want = lanes.wanted(slot.remainder);
        let first = W::read(&self.cells, slot.first);
        if let Some(at) = lanes.find(first, want) {
            return Some(lanes.cell_at(first, at) & self.tag_mask);
        }
        if slot.second != slot.first {
            let second = W::read(&self.cells, slot.second);
            if let Some(at) = lanes.find(second, want) {
                return Some(lanes.cell_at(second, at) & self.tag_mask);
            }
        }
        self.stash_tag(slot)
    }

    /// A hint for batches: when `slot`'s buckets (already cached) hold no
    /// entry of it and no free cell, prefetches the other bucket of each of
    /// their entries, the lines relocation will read. Changes nothing.
    #[inline]
    pub(crate) fn prefetch_relocation(&self, slot: Slot, ages: &Ages) {
        if self.line_rows {
            // Line buckets balance themselves: relocation is too rare to
            // be worth the peek's reads.
        } else if self.narrow_rows {
            self.prefetch_relocation_in::<u64>(slot, ages);
        } else {
            self.prefetch_relocation_in::<u128>(slot, ages);
        }
    }

    #[inline]
    fn prefetch_relocation_in<W: Word>(&self, slot: Slot, ages: &Ages) {
        let lanes = W::lanes(self);
        let want = lanes.wanted(slot.remainder);
        let rows = [
            W::read(&self.cells, slot.first),
            W::read(&self.cells, slot.second),
        ];
        for row in rows {
            if lanes.find(row, want).is_some() || lanes.free_and_stale(row, ages).0 != W::ZERO {
                return;
            }
        }
        for (bucket, row) in [slot.first, slot.second].into_iter().zip(rows) {
            for j in 0..self.per_bucket {
                let victim = lanes.cell(row, j) >> self.tag_bits;
                self.cells.prefetch(self.alternate(bucket, victim));
            }
        }
    }

    /// Records `slot` with `tag`: refreshes its entry if there is one (the
    /// paper's update of `h(x)`'s data) and returns the entry's old tag;
    /// otherwise inserts a new entry and returns `None`.
    ///
    /// A new entry takes a free cell — empty, or stale and overwritten (the
    /// lazy deletion of §2.4) — of either bucket, else relocation makes
    /// room, else it goes to the stash. It never fails. Each bucket is read
    /// once, and the reads that answer the query also choose the cell.
    #[inline]
    pub(crate) fn upsert(
        &mut self,
        slot: Slot,
        tag: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) -> Option<u32> {
        if self.line_rows {
            self.upsert_line(slot, tag, ages, rng)
        } else if self.narrow_rows {
            self.upsert_in::<u64>(slot, tag, ages, rng)
        } else {
            self.upsert_wide(slot, tag, ages, rng)
        }
    }

    /// [`upsert`](Self::upsert) for buckets wider than 64 bits (`ε < 2^-10`),
    /// out of line so that the usual narrow path keeps its registers.
    #[inline(never)]
    fn upsert_wide(
        &mut self,
        slot: Slot,
        tag: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) -> Option<u32> {
        self.upsert_in::<u128>(slot, tag, ages, rng)
    }

    /// The word layouts' insertion. Always inlined: the filter's
    /// out-of-line `record_any` is its one hot caller, and left to the
    /// compiler it stayed a call (3 % more instructions per observe).
    #[inline(always)]
    fn upsert_in<W: Word>(
        &mut self,
        slot: Slot,
        tag: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) -> Option<u32> {
        // The second bucket's line is requested before the first is read,
        // so that one item's two misses overlap.
        self.cells.prefetch(slot.second);
        let lanes = *W::lanes(self);
        let fresh = (slot.remainder << self.tag_bits) | tag;
        let want = lanes.wanted(slot.remainder);
        // The two refreshes below are written out: folded into a closure or
        // a helper, they cost 3-5 % more instructions per observe.
        let first = W::read(&self.cells, slot.first);
        if let Some(at) = lanes.find(first, want) {
            let old = lanes.cell_at(first, at) & self.tag_mask;
            W::write(
                &mut self.cells,
                slot.first,
                lanes.with_cell_at(first, at, fresh),
            );
            return Some(old);
        }
        let second = if slot.second == slot.first {
            first
        } else {
            let second = W::read(&self.cells, slot.second);
            if let Some(at) = lanes.find(second, want) {
                let old = lanes.cell_at(second, at) & self.tag_mask;
                W::write(
                    &mut self.cells,
                    slot.second,
                    lanes.with_cell_at(second, at, fresh),
                );
                return Some(old);
            }
            second
        };
        if let Some(old) = self.refresh_stash(slot, tag) {
            return Some(old);
        }
        // The bucket with more free cells (the first on a tie): balanced
        // buckets leave fewer insertions with both buckets full.
        let (free1, stale1) = lanes.free_and_stale(first, ages);
        let (free2, stale2) = lanes.free_and_stale(second, ages);
        let (bucket, row, free, stale) = if lanes.count(free2) > lanes.count(free1) {
            (slot.second, second, free2, stale2)
        } else {
            (slot.first, first, free1, stale1)
        };
        if free == W::ZERO {
            self.relocate::<W>(slot, [first, second], fresh, ages, rng);
        } else {
            self.place_at(bucket, row, free, stale, fresh);
        }
        None
    }

    /// Puts `value` in the first free cell of `bucket`, if it has one.
    #[inline(always)]
    fn try_place<W: Word>(&mut self, bucket: u64, value: u32, ages: &Ages) -> bool {
        let row = W::read(&self.cells, bucket);
        let (free, stale) = W::lanes(self).free_and_stale(row, ages);
        if free == W::ZERO {
            return false;
        }
        self.place_at(bucket, row, free, stale, value);
        true
    }

    /// Puts `value` in the lowest cell of `free` (non-zero) in `bucket`,
    /// which holds `row`.
    #[inline(always)]
    fn place_at<W: Word>(&mut self, bucket: u64, row: W, free: W, stale: W, value: u32) {
        let lanes = W::lanes(self);
        let lowest = free & free.wrapping_neg();
        let new = lanes.with_cell_at(row, lanes.lowest_at(free), value);
        W::write(&mut self.cells, bucket, new);
        self.occupied += u64::from(stale & lowest == W::ZERO);
    }

    /// Cuckoo relocation: every cell of both buckets (`rows`, as read)
    /// holds an active entry.
    ///
    /// First one level of breadth-first search: an entry of either bucket
    /// whose other bucket has a free cell moves there and the new entry takes
    /// its place. Otherwise a random walk: evict a random entry into the
    /// walk's bucket, send the evicted entry to its other bucket, repeat, up
    /// to [`MAX_KICKS`] times; the entry left homeless goes to the stash, or
    /// is dropped and counted when the stash holds [`STASH_CAPACITY`].
    /// Only active entries move (a stale one met on the way is overwritten),
    /// which is what keeps the scan's deadline: a stale entry is never
    /// carried behind the scan.
    #[cold]
    fn relocate<W: Word>(
        &mut self,
        slot: Slot,
        rows: [W; 2],
        value: u32,
        ages: &Ages,
        rng: &mut SplitMix64,
    ) {
        // Beyond the caches every line the search may read is requested
        // first, so that its misses overlap rather than follow one another.
        if self.relocation_prefetch {
            for (bucket, row) in [slot.first, slot.second].into_iter().zip(rows) {
                for j in 0..self.per_bucket {
                    let victim = W::lanes(self).cell(row, j) >> self.tag_bits;
                    self.cells.prefetch(self.alternate(bucket, victim));
                }
            }
        }
        for (bucket, row) in [slot.first, slot.second].into_iter().zip(rows) {
            for j in 0..self.per_bucket {
                let lanes = *W::lanes(self);
                let victim = lanes.cell(row, j);
                let other = self.alternate(bucket, victim >> self.tag_bits);
                if other != bucket && self.try_place::<W>(other, victim, ages) {
                    self.kicks += 1;
                    // `row` is still the bucket's content: the victim's
                    // other bucket is a different one.
                    W::write(
                        &mut self.cells,
                        bucket,
                        lanes.with_cell_at(row, j * lanes.width, value),
                    );
                    return;
                }
            }
        }
        self.walk(slot, value, ages, rng);
    }

    /// Relocation's random walk, when one level of search found no room:
    /// evict a random entry into the walk's bucket, send the evicted entry
    /// to its other bucket, repeat, up to [`MAX_KICKS`] times; the entry
    /// left homeless goes to the stash, or is dropped and counted when the
    /// stash holds [`STASH_CAPACITY`].
    #[cold]
    pub(super) fn walk(&mut self, slot: Slot, mut value: u32, ages: &Ages, rng: &mut SplitMix64) {
        let mut bucket = if rng.next_u64() & 1 == 0 {
            slot.first
        } else {
            slot.second
        };
        for _ in 0..MAX_KICKS {
            self.kicks += 1;
            let j = rng.below(u64::from(self.per_bucket)) as u32;
            value = self.cells.replace(bucket, j, value);
            bucket = self.alternate(bucket, value >> self.tag_bits);
            if self.try_place_any(bucket, value, ages) {
                return;
            }
        }
        if self.stash.len() < STASH_CAPACITY {
            let key = self.key(bucket, value >> self.tag_bits);
            self.stash.insert(key, value & self.tag_mask);
        } else {
            self.stash_overflows += 1;
        }
    }

    /// Puts `value` in the first free cell of `bucket`, whatever the layout.
    fn try_place_any(&mut self, bucket: u64, value: u32, ages: &Ages) -> bool {
        if self.line_rows {
            self.try_place_line(bucket, value, ages)
        } else if self.narrow_rows {
            self.try_place::<u64>(bucket, value, ages)
        } else {
            self.try_place::<u128>(bucket, value, ages)
        }
    }

    /// Visits the scan's next `count` buckets, in order and wrapping around,
    /// and deletes their stale entries (§2.5).
    #[inline]
    pub(crate) fn scan(&mut self, count: u64, ages: &Ages) {
        if self.line_rows {
            self.scan_line(count, ages);
        } else if self.narrow_rows {
            self.scan_in::<u64>(count, ages);
        } else {
            self.scan_wide(count, ages);
        }
    }

    /// [`scan`](Self::scan) for buckets wider than 64 bits, out of line.
    #[inline(never)]
    fn scan_wide(&mut self, count: u64, ages: &Ages) {
        self.scan_in::<u128>(count, ages);
    }

    #[inline]
    fn scan_in<W: Word>(&mut self, count: u64, ages: &Ages) {
        // Locals, so that the constants stay in registers across the writes.
        let lanes = *W::lanes(self);
        let (buckets, mut bucket, mut freed) = (self.buckets, self.scan, 0);
        for _ in 0..count {
            let row = W::read(&self.cells, bucket);
            let (_, stale) = lanes.free_and_stale(row, ages);
            if stale != W::ZERO {
                // Spread each lane's flag over the lane: no carries, a flag is one bit.
                let flags = (stale >> (lanes.width - 1)).wrapping_mul(W::from_u32(lanes.cell_mask));
                W::write(&mut self.cells, bucket, row & !flags);
                freed += u64::from(lanes.count(stale));
            }
            bucket = if bucket + 1 == buckets { 0 } else { bucket + 1 };
        }
        self.scan = bucket;
        self.occupied -= freed;
    }

    /// At the end of a generation: drop stale stash entries and move the
    /// others back into the table where a cell is free (no relocation).
    pub(crate) fn sweep_stash(&mut self, ages: &Ages) {
        if self.stash.is_empty() {
            return;
        }
        self.stash.retain(|_, tag| ages.is_active(*tag));
        let parked: Vec<(EntryKey, u32)> = self.stash.iter().map(|(k, t)| (*k, *t)).collect();
        for (key, tag) in parked {
            let slot = self.slot(key.bucket, key.remainder);
            let value = (key.remainder << self.tag_bits) | tag;
            for bucket in [slot.first, slot.second] {
                if self.try_place_any(bucket, value, ages) {
                    self.stash.remove(&key);
                    break;
                }
            }
        }
    }

    /// Empties every cell and the stash; the scan position stays.
    pub(crate) fn clear_entries(&mut self) {
        if self.occupied > 0 {
            self.cells.clear();
            self.occupied = 0;
        }
        self.stash.clear();
    }

    /// Back to the state right after construction.
    pub(crate) fn reset(&mut self) {
        self.clear_entries();
        self.scan = 0;
        self.kicks = 0;
        self.stash_overflows = 0;
    }

    /// Entries dropped because the stash was full.
    pub(crate) fn stash_overflows(&self) -> u64 {
        self.stash_overflows
    }

    /// Relocation moves since construction, `clear` or restore.
    pub(crate) fn kicks(&self) -> u64 {
        self.kicks
    }

    pub(crate) fn occupied(&self) -> u64 {
        self.occupied
    }

    pub(crate) fn stash_len(&self) -> usize {
        self.stash.len()
    }

    pub(crate) fn scan_position(&self) -> u64 {
        self.scan
    }

    pub(crate) fn cells(&self) -> &Buckets {
        &self.cells
    }

    pub(crate) fn stash(&self) -> &BTreeMap<EntryKey, u32> {
        &self.stash
    }

    /// Parks an entry in the stash (snapshot restore); false if it repeats
    /// one or the stash is full.
    pub(crate) fn stash_insert(&mut self, key: EntryKey, tag: u32) -> bool {
        self.stash.len() < STASH_CAPACITY && self.stash.insert(key, tag).is_none()
    }

    /// Every entry with its tag: table cells, then the stash.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (EntryKey, u32)> + '_ {
        let table = (0..self.buckets).flat_map(move |b| {
            (0..self.per_bucket).filter_map(move |j| {
                let v = self.cells.get(b, j);
                (v != 0).then(|| (self.key(b, v >> self.tag_bits), v & self.tag_mask))
            })
        });
        table.chain(self.stash.iter().map(|(k, t)| (*k, *t)))
    }

    /// The key of an item in bucket `first` with `remainder`.
    pub(crate) fn key_of(&self, first: u64, remainder: u32) -> EntryKey {
        self.key(first, remainder)
    }
}

#[cfg(test)]
mod tests;
