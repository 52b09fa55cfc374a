//! The FIFO `Q` of Theorem 1: the window's items, oldest first, in a ring.
//!
//! A full count window does one thing per insertion: the new item takes the
//! slot of the oldest, which leaves. [`Fifo::replace_oldest`] is exactly that,
//! one read and one write of the slot at `head` and a wrap of `head`, with no
//! capacity or growth check on the way (the `VecDeque` it replaces checked
//! both on every push and pop, and the pop was a call of its own).
//!
//! The ring grows by doubling while it fills, never past its bound (the
//! window, or a time window's capacity), so a large window costs memory only
//! as items arrive. A popped slot keeps its old item until a push overwrites
//! it: the ring never moves an item out, so it needs neither `Default` nor
//! `Option` slots, and a popped item lives at most until its slot is reused
//! or the ring is cleared.

/// A ring of at most `bound` items; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct Fifo<T> {
    /// Every slot holds an item; the live ones are `len` slots from `head`.
    slots: Vec<T>,
    /// The oldest live item's slot (0 when the ring is empty and unwrapped).
    head: usize,
    /// Live items.
    len: usize,
    /// The most live items, and so slots, the ring ever holds.
    bound: usize,
}

impl<T> Fifo<T> {
    /// An empty ring of at most `bound` (`≥ 1`) items; nothing is allocated
    /// until the first push.
    pub(crate) fn new(bound: usize) -> Self {
        Fifo {
            slots: Vec::new(),
            head: 0,
            len: 0,
            bound: bound.max(1),
        }
    }

    /// Live items.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the ring holds `bound` live items.
    #[inline(always)]
    pub(crate) fn is_full(&self) -> bool {
        self.len == self.bound
    }

    /// The slot `i` places after `head`, wrapped (`i <` the slots).
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        let at = self.head + i;
        if at >= self.slots.len() {
            at - self.slots.len()
        } else {
            at
        }
    }

    /// The oldest live item.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.slots[self.head])
    }

    /// The live item `i` places after the oldest.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.slots[self.slot(i)])
    }

    /// Drops the oldest live item from the window and returns it; its slot
    /// keeps it until reused.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        let at = self.head;
        self.head = self.slot(1);
        self.len -= 1;
        Some(&self.slots[at])
    }
}

impl<T: Clone> Fifo<T> {
    /// Puts `item` in the oldest item's slot and returns the oldest, when
    /// the ring is full; else appends `item` and returns `None`.
    #[inline(always)]
    pub(crate) fn replace_oldest(&mut self, item: T) -> Option<T> {
        if self.len < self.bound {
            self.push(item);
            return None;
        }
        let old = std::mem::replace(&mut self.slots[self.head], item);
        self.head += 1;
        if self.head == self.slots.len() {
            self.head = 0;
        }
        Some(old)
    }

    /// Appends `item` behind the newest; the caller keeps the bound (a
    /// full ring drops its oldest first), so the ring never holds more.
    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        if self.len == self.slots.len() {
            self.grow(item);
            return;
        }
        let at = self.slot(self.len);
        self.slots[at] = item;
        self.len += 1;
    }

    /// Appends `item` to a ring whose slots are all live: unwraps the ring
    /// so the oldest is at 0, and doubles the slots (never past the bound;
    /// one slot over when the caller broke it). The new slots beyond the
    /// item hold copies of it, dead until pushes overwrite them, so that the
    /// next pushes find free slots: a ring that pops and pushes in turn (a
    /// time window) grows, and moves its items, only when it holds more
    /// live items than ever before.
    #[cold]
    fn grow(&mut self, item: T) {
        self.slots.rotate_left(self.head);
        self.head = 0;
        let n = self.slots.len();
        let want = (2 * n).max(4).min(self.bound).max(n + 1);
        self.slots.reserve_exact(want - n);
        // Slot `n`, right after the old items, is the newest live item.
        self.slots.resize(want, item);
        self.len += 1;
    }
}

impl<T> Fifo<T> {
    /// The live items, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len).map(move |i| &self.slots[self.slot(i)])
    }

    /// Empties the ring and frees its slots.
    pub(crate) fn clear(&mut self) {
        self.slots = Vec::new();
        self.head = 0;
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    proptest! {
        /// Pushes, pops and replacements against a `VecDeque` model, with
        /// the bound a count window or a time window keeps.
        #[test]
        fn matches_a_deque(bound in 1usize..12, ops in prop::collection::vec(0u8..4, 0..300)) {
            let mut f = Fifo::new(bound);
            let mut model = VecDeque::new();
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    0 => prop_assert_eq!(f.pop().copied(), model.pop_front()),
                    1 if model.len() < bound => {
                        f.push(n);
                        model.push_back(n);
                    }
                    _ => {
                        let old = if model.len() == bound { model.pop_front() } else { None };
                        model.push_back(n);
                        prop_assert_eq!(f.replace_oldest(n), old);
                    }
                }
                prop_assert_eq!(f.len(), model.len());
                prop_assert_eq!(f.is_full(), model.len() == bound);
                prop_assert_eq!(f.front(), model.front());
                prop_assert!(f.iter().eq(model.iter()));
                for i in 0..=model.len() {
                    prop_assert_eq!(f.get(i), model.get(i));
                }
                // Never more slots, nor room for them, than the bound.
                prop_assert!(f.slots.len() <= bound && f.slots.capacity() <= bound.max(4));
            }
            f.clear();
            prop_assert!(f.front().is_none() && f.iter().next().is_none());
        }
    }

    /// Growth doubles the slots, so a ring that pops and pushes in turn
    /// finds free slots instead of growing (and moving every item) again.
    #[test]
    fn growth_leaves_free_slots() {
        let mut f = Fifo::new(1000);
        for i in 0..100 {
            f.push(i);
        }
        assert_eq!((f.len(), f.slots.len()), (100, 128));
        for i in 100..10_000 {
            f.pop();
            f.push(i);
            assert_eq!(f.slots.len(), 128);
        }
        assert!(f.iter().copied().eq(9_900..10_000));
    }
}
