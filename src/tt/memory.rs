//! The memory a table's packed buckets live in.

pub(super) use imp::{Memory, ZEROED};

/// The smallest page the system maps: writing one byte of each maps all of a table.
pub(super) const PAGE: usize = 4096;

#[cfg(target_os = "linux")]
mod imp {
    use std::mem::MaybeUninit;

    /// 2 MiB, the size of a transparent huge page.
    const HUGE: usize = 2 << 20;

    /// An anonymous mapping is zeroed by the system.
    pub(in crate::tt) const ZEROED: bool = true;

    /// An anonymous mapping, its buckets starting at a 2 MiB boundary and advised to be backed
    /// by 2 MiB pages (`MADV_HUGEPAGE`; where transparent huge pages are set to `madvise`, the
    /// default of many distributions, a table would otherwise get 4 KiB pages). Every probe
    /// goes to a random bucket: with 4 KiB pages nearly each one also missed the TLB and walked
    /// page tables too large for the caches (32 MiB of them for a 16 GiB table).
    pub(in crate::tt) struct Memory<B> {
        base: *mut libc::c_void,
        total: usize,
        start: *mut B,
        len: usize,
    }

    // SAFETY: the mapping is owned by this value alone, as a `Vec<B>` owns its buffer.
    unsafe impl<B: Send> Send for Memory<B> {}
    // SAFETY: as above; shared access only reads through `&[B]`.
    unsafe impl<B: Sync> Sync for Memory<B> {}

    impl<B> Memory<B> {
        /// Room for `len` buckets, or `None` if the system refuses it.
        pub(in crate::tt) fn new(len: usize) -> Option<Memory<B>> {
            let bytes = len.checked_mul(std::mem::size_of::<B>())?;
            let total = bytes.checked_add(HUGE)?;
            // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    total,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let start = (base as usize).next_multiple_of(HUGE);
            // SAFETY: `start..start + bytes` lies inside the mapping. Only advice: a kernel
            // without transparent huge pages refuses it and the table works as before.
            unsafe { libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
            Some(Memory {
                base,
                total,
                start: start as *mut B,
                len,
            })
        }

        /// The buckets' slots, to be written before [`Memory::assume_filled`].
        pub(in crate::tt) fn slots(&mut self) -> &mut [MaybeUninit<B>] {
            // SAFETY: `len` buckets fit in the mapping from `start`, which `self` owns.
            unsafe { std::slice::from_raw_parts_mut(self.start.cast(), self.len) }
        }

        /// Declares every slot written.
        ///
        /// # Safety
        /// Every slot of [`Memory::slots`] must have been written.
        pub(in crate::tt) unsafe fn assume_filled(&mut self) {}

        /// The buckets (every slot written, see [`Memory::assume_filled`]).
        #[inline(always)]
        pub(in crate::tt) fn buckets(&self) -> &[B] {
            // SAFETY: `len` buckets from `start`, all written before the table was handed out
            // (the mapping is zeroed anyway, and zero is an empty bucket).
            unsafe { std::slice::from_raw_parts(self.start, self.len) }
        }
    }

    impl<B> Drop for Memory<B> {
        fn drop(&mut self) {
            // SAFETY: the mapping made in `new`, unmapped once.
            unsafe { libc::munmap(self.base, self.total) };
        }
    }
}

/// An ordinary allocation where `madvise` is not available.
#[cfg(not(target_os = "linux"))]
mod imp {
    use std::mem::MaybeUninit;

    /// An ordinary allocation holds whatever was there.
    pub(in crate::tt) const ZEROED: bool = false;

    pub(in crate::tt) struct Memory<B> {
        buckets: Vec<B>,
        len: usize,
    }

    impl<B> Memory<B> {
        pub(in crate::tt) fn new(len: usize) -> Option<Memory<B>> {
            let mut buckets = Vec::new();
            buckets.try_reserve_exact(len).ok()?;
            Some(Memory { buckets, len })
        }

        pub(in crate::tt) fn slots(&mut self) -> &mut [MaybeUninit<B>] {
            &mut self.buckets.spare_capacity_mut()[..self.len]
        }

        /// # Safety
        /// Every slot of [`Memory::slots`] must have been written.
        pub(in crate::tt) unsafe fn assume_filled(&mut self) {
            // SAFETY: the capacity is at least `len`, and the caller wrote every slot.
            unsafe { self.buckets.set_len(self.len) };
        }

        #[inline(always)]
        pub(in crate::tt) fn buckets(&self) -> &[B] {
            &self.buckets
        }
    }
}
