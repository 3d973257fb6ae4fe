//! Loop side: which worker each batch index goes to. The DataLoader hands
//! whole batches to its workers round robin (`_try_put_index` cycling over
//! the index queues), so batch `j` goes to worker `j mod W`; this is that
//! rule, written once, for the engine's hand-out and the pools that must
//! know whose a batch is.

/// The worker batch `index` goes to, of `workers` (round robin).
pub fn owner(index: u64, workers: usize) -> usize {
    (index % workers as u64) as usize
}
