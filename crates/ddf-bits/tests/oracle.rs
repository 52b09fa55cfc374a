//! Property tests: hand-packed storage agrees with `bitvec` on the same layout,
//! and `CellRows` with a naive `Vec<Vec<u32>>` model.

use bitvec::field::BitField;
use bitvec::prelude::{BitVec, Lsb0};
use ddf_bits::{BitArray, CellRows, PackedArray};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// Fixed seed, no regression files: every run tests the same cases.
fn config() -> Config {
    Config {
        cases: 96,
        rng_seed: RngSeed::Fixed(0xDDF_B175),
        failure_persistence: None,
        ..Config::default()
    }
}

fn oracle(bits: u64) -> BitVec<u64, Lsb0> {
    BitVec::repeat(false, bits as usize)
}

fn low_mask(len: u32) -> u64 {
    if len == 0 { 0 } else { u64::MAX >> (64 - len) }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn bit_ops_agree(
        len in 1u64..600,
        ops in prop::collection::vec((0u8..4, any::<u64>()), 0..200),
    ) {
        let mut hand = BitArray::new(len).unwrap();
        let mut bv = oracle(len);
        for (op, seed) in ops {
            let i = seed % len;
            let at = i as usize;
            match op {
                0 => hand.set(i),
                1 => hand.unset(i),
                2 => prop_assert_eq!(hand.test_and_set(i), bv.replace(at, true)),
                _ => prop_assert_eq!(hand.get(i), bv[at]),
            }
            match op {
                0 => bv.set(at, true),
                1 => bv.set(at, false),
                _ => {}
            }
        }
        prop_assert_eq!(hand.as_words(), bv.as_raw_slice());
        prop_assert_eq!(hand.count_ones(), bv.count_ones() as u64);
    }

    #[test]
    fn fields_agree(
        len in 1u64..1200,
        ops in prop::collection::vec((any::<u64>(), 0u32..=64, any::<u64>(), any::<bool>()), 0..120),
    ) {
        let mut hand = BitArray::new(len).unwrap();
        let mut bv = oracle(len);
        for (offset_seed, field, value, write) in ops {
            let field = field.min(len as u32);
            let offset = offset_seed % (len - u64::from(field) + 1);
            let range = offset as usize..(offset + u64::from(field)) as usize;
            if write {
                hand.write_bits(offset, field, value);
                if field > 0 {
                    bv[range].store_le(value & low_mask(field));
                }
            } else {
                let expected = if field == 0 { 0 } else { bv[range].load_le::<u64>() };
                prop_assert_eq!(hand.read_bits(offset, field), expected);
            }
        }
        prop_assert_eq!(hand.as_words(), bv.as_raw_slice());
        let rebuilt = BitArray::from_words(len, hand.as_words().to_vec()).unwrap();
        prop_assert_eq!(rebuilt, hand);
    }

    #[test]
    fn word_writes_and_cleared_ranges_agree(
        len in 1u64..700,
        fill in any::<u64>(),
        ranges in prop::collection::vec((any::<u64>(), any::<u64>()), 1..8),
    ) {
        let mut hand = BitArray::new(len).unwrap();
        let mut bv = oracle(len);
        // Every word written through `with_words_mut`, bits past `len`
        // included: those must drop.
        let pattern = |w: usize| fill.rotate_left(w as u32 % 64);
        let words = hand.with_words_mut(|words| {
            for (w, word) in words.iter_mut().enumerate() {
                *word = pattern(w);
            }
            words.len()
        });
        prop_assert_eq!(words, hand.as_words().len());
        for i in 0..len as usize {
            bv.set(i, pattern(i / 64) >> (i % 64) & 1 == 1);
        }
        prop_assert_eq!(hand.as_words(), bv.as_raw_slice());
        for (start_seed, len_seed) in ranges {
            let start = start_seed % (len + 1);
            let run = len_seed % (len - start + 1);
            hand.clear_range(start, run);
            bv[start as usize..(start + run) as usize].fill(false);
            prop_assert_eq!(hand.as_words(), bv.as_raw_slice());
        }
        prop_assert_eq!(hand.count_ones(), bv.count_ones() as u64);
    }

    #[test]
    fn packed_cells_agree(
        width in 1u32..=32,
        len in 1u64..400,
        ops in prop::collection::vec((any::<u64>(), any::<u32>(), 0u8..3), 0..200),
    ) {
        let mut hand = PackedArray::new(len, width).unwrap();
        let mut bv = oracle(len * u64::from(width));
        let w = width as usize;
        for (index_seed, value, op) in ops {
            let i = index_seed % len;
            let range = i as usize * w..(i as usize + 1) * w;
            let stored = value & hand.max_value();
            match op {
                0 => hand.set(i, value),
                1 => prop_assert_eq!(hand.replace(i, value), bv[range.clone()].load_le::<u32>()),
                _ => prop_assert_eq!(hand.get(i), bv[range.clone()].load_le::<u32>()),
            }
            if op != 2 {
                bv[range].store_le(stored);
            }
        }
        prop_assert_eq!(hand.as_words(), bv.as_raw_slice());
        let cells: Vec<u32> = bv.chunks(w).map(|c| c.load_le::<u32>()).collect();
        prop_assert_eq!(hand.iter().collect::<Vec<_>>(), cells);
    }

    #[test]
    fn cell_rows_agree_with_model(
        rows in 1u64..6,
        k in 1usize..80,
        width in 1u32..=32,
        ops in prop::collection::vec((0u8..8, any::<u64>(), any::<u64>(), any::<u64>()), 0..300),
    ) {
        let mut hand = CellRows::new(rows, k, width).unwrap();
        let word_rows = k as u64 * u64::from(width) <= 64;
        let mut model = vec![vec![0u32; k]; rows as usize];
        let max = u32::MAX >> (32 - width);
        for (op, row_seed, cell_seed, value_seed) in ops {
            let r = row_seed % rows;
            let row = &mut model[r as usize];
            let j = (cell_seed % k as u64) as usize;
            // Mostly a few small values, so that finds hit and rows repeat
            // values; sometimes any value, including ones too wide to store.
            let value = match value_seed % 4 {
                0 => (value_seed >> 2) as u32,
                _ => (value_seed >> 2) as u32 % 4,
            };
            let stored = value & max;
            match op {
                0 => {
                    hand.set(r, j, value);
                    row[j] = stored;
                }
                1 => {
                    prop_assert_eq!(hand.replace(r, j, value), row[j]);
                    row[j] = stored;
                }
                2 => {
                    let evicted = row.pop().unwrap();
                    row.insert(0, stored);
                    prop_assert_eq!(hand.push_front(r, value), evicted);
                }
                3 => prop_assert_eq!(hand.find(r, value), row.iter().position(|&c| c == value)),
                4 => prop_assert_eq!(hand.first_empty(r), row.iter().position(|&c| c == 0)),
                5 => {
                    // A mask of a few low or high bits: one field of a packed cell.
                    let mask = (cell_seed >> 32) as u32;
                    let mask = if mask & 1 == 0 { mask & 0xff } else { mask & !0xff };
                    prop_assert_eq!(
                        hand.find_masked(r, value, mask),
                        row.iter().position(|&c| c & mask == value & mask & max)
                    );
                }
                7 if word_rows => {
                    // A whole one-word row; bits beyond it are ignored.
                    hand.write_row_word(r, value_seed);
                    for (j, c) in row.iter_mut().enumerate() {
                        *c = (value_seed >> (j as u32 * width)) as u32 & max;
                    }
                }
                _ => prop_assert_eq!(hand.count_occupied(r), row.iter().filter(|&&c| c != 0).count()),
            }
        }
        for (r, row) in model.iter().enumerate() {
            let r = r as u64;
            prop_assert_eq!(&hand.row_iter(r).collect::<Vec<_>>(), row);
            prop_assert_eq!(hand.count_occupied(r), row.iter().filter(|&&c| c != 0).count());
            prop_assert_eq!(hand.first_empty(r), row.iter().position(|&c| c == 0));
            for &c in row {
                prop_assert_eq!(hand.find(r, c), row.iter().position(|&x| x == c));
            }
            if k as u64 * u64::from(width) <= CellRows::MAX_WHOLE_ROW_BITS {
                let whole = row
                    .iter()
                    .enumerate()
                    .fold(0u128, |acc, (j, &c)| acc | u128::from(c) << (j as u32 * width));
                prop_assert_eq!(hand.read_row(r), whole);
                if word_rows {
                    prop_assert_eq!(u128::from(hand.read_row_word(r)), whole);
                }
            }
        }
        let flat: Vec<u32> = model.concat();
        prop_assert_eq!(hand.as_packed().iter().collect::<Vec<_>>(), flat);
    }
}
