//! Loop side: which worker each batch index goes to, and which index is
//! handed out next. The DataLoader hands whole batches to its workers round
//! robin (`_try_put_index` cycling over the index queues), so batch `j`
//! goes to worker `j mod W`: the first `prefetch_factor x W` indices as the
//! workers start, then one more for every batch the loop takes. The rule is
//! written once here, for that hand-out and for the pools that must know
//! whose a batch is.

/// The worker batch `index` goes to, of `workers` (round robin).
pub fn owner(index: u64, workers: usize) -> usize {
    (index % workers as u64) as usize
}

/// The batch indices of one run, handed out in order, each to its owner.
#[derive(Debug, Clone)]
pub struct Sampler {
    workers: usize,
    total: u64,
    /// The next index to hand out.
    next: u64,
}

impl Sampler {
    /// The indices `0..total` for `workers` workers (none for 0: the loop
    /// produces inline).
    pub fn new(workers: usize, total: u64) -> Self {
        Sampler {
            workers,
            total,
            next: 0,
        }
    }

    /// The first `ahead` indices (all of them, when there are fewer), by
    /// owner: `first[w]` is what worker `w` gets as it starts.
    pub fn first(&mut self, ahead: usize) -> Vec<Vec<u64>> {
        let mut first = vec![Vec::new(); self.workers];
        if self.workers == 0 {
            return first;
        }
        let sent = self.total.min(ahead as u64);
        for j in self.next..sent {
            first[owner(j, self.workers)].push(j);
        }
        self.next = self.next.max(sent);
        first
    }

    /// How many indices have been handed out.
    pub fn handed_out(&self) -> u64 {
        self.next
    }
}

/// The indices after the first ones, one at a time, with their owners.
impl Iterator for Sampler {
    type Item = (usize, u64);

    fn next(&mut self) -> Option<(usize, u64)> {
        if self.workers == 0 || self.next >= self.total {
            return None;
        }
        let index = self.next;
        self.next += 1;
        Some((owner(index, self.workers), index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_indices_go_round_robin_then_one_at_a_time() {
        let mut s = Sampler::new(3, 10);
        assert_eq!(s.first(4), vec![vec![0, 3], vec![1], vec![2]]);
        assert_eq!(s.handed_out(), 4);
        assert_eq!(s.next(), Some((1, 4)));
        assert_eq!(s.next(), Some((2, 5)));
        let rest: Vec<_> = s.by_ref().collect();
        assert_eq!(rest, vec![(0, 6), (1, 7), (2, 8), (0, 9)]);
        assert_eq!(s.handed_out(), 10);
    }

    #[test]
    fn a_short_run_hands_out_what_there_is_and_no_workers_get_nothing() {
        let mut s = Sampler::new(4, 3);
        assert_eq!(s.first(8), vec![vec![0], vec![1], vec![2], vec![]]);
        assert_eq!(s.next(), None);
        let mut inline = Sampler::new(0, 5);
        assert_eq!(inline.first(0), Vec::<Vec<u64>>::new());
        assert_eq!(inline.next(), None);
    }
}
