#pragma once
// The memory of owning tensors (what contiguous() returns): 64-byte aligned blocks, and from
// large_block_threshold on, blocks of whole pages recycled through a small per-thread cache,
// from 2 MiB on advised as transparent huge pages.
#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__linux__) && __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace lazyview {

/// A new tensor's pages are first touched by the copy that fills it, so each 4 KiB page costs
/// that copy a page fault, and faults cost far more than the bytes they map: about 11 us each
/// on a 2-core Zen 5 VM (Debian 12, THP "madvise"), where dynamic FLUX pack fp32 by
/// contiguous() took 225 ms per call at (1,16,1024,1024), 64 MiB, against about 3 ms for copy()
/// of the same into a buffer already mapped, and 2.9 ms at (1,16,128,128), 1 MiB, against 25 us.
/// glibc maps a block afresh from its mmap threshold on (128 KiB, rising to the size of a
/// mapped block freed, up to 32 MiB) and unmaps it when freed; a block the size of the last one
/// freed is still past the risen threshold, so a loop of same-sized contiguous() calls faults
/// in every page of every result. So from large_block_threshold on, a block
/// - is kept when freed, in a cache of the freeing thread (large_block_cache_slots blocks, up to
///   large_block_cache_bytes together), for the next block of its size or a little less: a
///   loop that calls contiguous() on the same shapes maps its memory once. Same machine, ms per
///   call, median of 15: 2.9 -> 0.03 at (1,16,128,128);
/// - from 2 MiB, is whole 2 MiB pages on a 2 MiB boundary, advised as transparent huge pages
///   (Linux, madvise(MADV_HUGEPAGE); best effort: a kernel without them ignores it): a fault
///   maps what 512 did, for a block's first use. Fresh blocks, ms per call: 225 -> 9.8 at
///   (1,16,1024,1024), 48 -> 1.9 at (1,16,512,512). The cost: where the kernel must compact
///   memory to find a free huge page (defrag "madvise", Debian's default), that fault waits for
///   it (a first call of 100-135 ms at 64 MiB here). Chains over such a result read it through
///   fewer TLB entries too: FLUX pack of a 64 MiB fp32 tensor into another, both advised, ran
///   at 36-39 GB/s against 22 on 4 KiB pages (memcpy: 44 and 40).
/// Both together, in bench/ (1 thread, GB/s read + written, medians of 3 alternated runs),
/// contiguous() of FLUX pack fp32 (16,16,256,256), 64 MiB, went 0.5 -> 26.5 (copy() into the
/// benchmark's buffer: 22.7), bf16 0.5 -> 31.1, unpack fp32 0.5 -> 33.2, (4096,4096).t() fp32
/// 0.6 -> 18.5, the agents chain (4200,500,6) 0.6 -> 19.5; results of 1 to 16 MiB, which glibc
/// had mostly recycled already, 1.0-1.45x (FLUX rows: medians of 7).
/// Define LAZYVIEW_LARGE_BLOCK_BYTES to 0 to turn both off (plain 64-byte aligned blocks), or to
/// another threshold in bytes. PyTorch 1.13 does neither; later releases advise from 2 MiB
/// under THP_MEM_ALLOC_ENABLE=1.
#ifndef LAZYVIEW_LARGE_BLOCK_BYTES
#define LAZYVIEW_LARGE_BLOCK_BYTES (std::size_t{128} << 10)
#endif
inline constexpr std::size_t large_block_threshold = LAZYVIEW_LARGE_BLOCK_BYTES;
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
inline constexpr std::size_t small_page_bytes = std::size_t{4} << 10;
/// What a thread's cache may keep for tensors that are gone: enough for a loop's few large
/// results (four of FLUX pack's 64 MiB at (16,16,256,256) fp32), bounded since no tensor frees it.
inline constexpr int large_block_cache_slots = 4;
inline constexpr std::size_t large_block_cache_bytes = std::size_t{256} << 20;

/// Whether a block for `bytes` is a large one (kept, whole pages).
constexpr bool large_block(std::size_t bytes) { return large_block_threshold != 0 && bytes >= large_block_threshold; }

/// The size of the block that holds `bytes`: large ones rounded up to whole pages (2 MiB pages
/// from 2 MiB, 4 KiB ones below), others `bytes`.
/// Example: 100 KiB -> 100 KiB; 1000 KiB -> 1000 KiB (4 KiB pages); 3 MiB -> 4 MiB.
constexpr std::size_t storage_capacity(std::size_t bytes) {
  if (!large_block(bytes)) return bytes;
  const std::size_t page = bytes >= huge_page_bytes ? huge_page_bytes : small_page_bytes;
  return (bytes + page - 1) / page * page;
}
/// The alignment of a block of capacity `cap` (from storage_capacity, or a kept block's):
/// 2 MiB for large blocks of whole 2 MiB pages, 4 KiB for other large blocks, else 64.
constexpr std::size_t storage_alignment(std::size_t cap) {
  if (!large_block(cap)) return 64;
  return cap >= huge_page_bytes && cap % huge_page_bytes == 0 ? huge_page_bytes : small_page_bytes;
}

namespace detail {

/// Small blocks are ordinary ones of `small_block_slack` bytes more, aligned by hand, with the
/// address operator new returned kept in the 8 bytes below the aligned one (operator new aligns to
/// at least 16, so the aligned block starts 16 to 64 bytes in). glibc's aligned operator new
/// (memalign) carves an aligned block out of a larger chunk and frees the rest, which consolidates
/// free chunks: a new and delete of 432 bytes with 64-byte alignment took 53 ns (4 KiB: 50,
/// 64 KiB: 52), by hand 16 ns (27, 29), medians of 9 x 100000 pairs on a 2-core Zen 3 VM; about
/// 720 of the 2750 instructions of contiguous() of FLUX pack (1,3,6,6) fp32 (callgrind).
/// Under AddressSanitizer blocks are exact (aligned operator new), so that a kernel writing past
/// a result's end is reported, not lost in the slack; define LAZYVIEW_EXACT_SMALL_BLOCKS to 1 to
/// have them so elsewhere (or to 0 to align by hand under the sanitizer too). Every translation
/// unit that allocates or frees a tensor's memory must agree on it (a block is freed as it was
/// allocated).
#ifndef LAZYVIEW_EXACT_SMALL_BLOCKS
#if defined(__SANITIZE_ADDRESS__)
#define LAZYVIEW_EXACT_SMALL_BLOCKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LAZYVIEW_EXACT_SMALL_BLOCKS 1
#endif
#endif
#endif
#ifndef LAZYVIEW_EXACT_SMALL_BLOCKS
#define LAZYVIEW_EXACT_SMALL_BLOCKS 0
#endif
inline constexpr std::size_t small_block_slack = 64;
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= sizeof(void*), "room for the address below the aligned block");

/// A block of `cap` bytes on a 64-byte boundary. Example: operator new gives q = 0x...10 ->
/// 0x...40, with q at 0x...38.
inline void* new_small_block(std::size_t cap) {
  if constexpr (LAZYVIEW_EXACT_SMALL_BLOCKS) {
    return ::operator new(cap, std::align_val_t{64});
  } else {
    if (cap > SIZE_MAX - small_block_slack) throw std::bad_alloc();
    char* const q = static_cast<char*>(::operator new(cap + small_block_slack));
    char* const p = q + (small_block_slack - (reinterpret_cast<std::uintptr_t>(q) & (small_block_slack - 1)));
    reinterpret_cast<void**>(p)[-1] = q;
    return p;
  }
}
inline void delete_small_block(void* p) noexcept {
  if constexpr (LAZYVIEW_EXACT_SMALL_BLOCKS)
    ::operator delete(p, std::align_val_t{64});
  else
    ::operator delete(static_cast<void**>(p)[-1]);
}

/// Frees block p of capacity cap as it was allocated (storage_alignment: by hand below
/// large_block_threshold, else with the alignment operator new was asked for).
inline void free_block(void* p, std::size_t cap) noexcept {
  if (!large_block(cap))
    delete_small_block(p);
  else
    ::operator delete(p, std::align_val_t{storage_alignment(cap)});
}

/// Set when the calling thread's block_cache is destroyed (at thread exit, before static
/// objects): a tensor freed after that, a static one say, bypasses the cache. (A trivially
/// destructible flag: it outlives the cache.)
inline thread_local bool block_cache_gone = false;

/// A thread's freed large blocks, oldest first; freed for good when the thread ends.
class block_cache {
 public:
  block_cache() = default;
  block_cache(const block_cache&) = delete;
  block_cache& operator=(const block_cache&) = delete;
  ~block_cache() {
    clear();
    block_cache_gone = true;
  }
  /// This thread's cache, or nullptr once it is gone.
  static block_cache* mine() {
    if (block_cache_gone) return nullptr;
    thread_local block_cache c;
    return &c;
  }
  /// A kept block of capacity `cap` to reuse, or nullptr: the smallest kept one that holds cap
  /// bytes and is at most a quarter larger (a larger one would hold memory the tensor never
  /// uses). Its capacity goes to *got.
  void* take(std::size_t cap, std::size_t* got) {
    int best = -1;
    for (int i = 0; i < n_; ++i)
      if (slot_[i].cap >= cap && slot_[i].cap - cap <= cap / 4 && (best < 0 || slot_[i].cap < slot_[best].cap))
        best = i;
    if (best < 0) return nullptr;
    void* const p = slot_[best].p;
    *got = slot_[best].cap;
    drop(best);
    return p;
  }
  /// Keeps block p of capacity cap, freeing the oldest kept ones while the cache would be over
  /// its slots or bytes; a block over large_block_cache_bytes alone is freed at once.
  void put(void* p, std::size_t cap) {
    if (cap > large_block_cache_bytes) {
      free_block(p, cap);
      return;
    }
    while (n_ > 0 && (n_ == large_block_cache_slots || bytes_ + cap > large_block_cache_bytes)) {
      free_block(slot_[0].p, slot_[0].cap);
      drop(0);
    }
    slot_[n_++] = {p, cap};
    bytes_ += cap;
  }
  /// How many blocks, and how many bytes, the cache keeps.
  int kept() const { return n_; }
  std::size_t kept_bytes() const { return bytes_; }
  /// Frees every kept block (see release_cached_storage).
  void clear() {
    for (; n_ > 0; --n_) free_block(slot_[n_ - 1].p, slot_[n_ - 1].cap);
    bytes_ = 0;
  }

 private:
  /// Forgets slot i (its block is the caller's now), keeping the others oldest first.
  void drop(int i) {
    bytes_ -= slot_[i].cap;
    for (; i + 1 < n_; ++i) slot_[i] = slot_[i + 1];
    --n_;
  }
  struct block {
    void* p;
    std::size_t cap;
  };
  block slot_[large_block_cache_slots]{};
  int n_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace detail

/// A block for `bytes` (> 0) of storage_capacity(bytes) bytes or a little more (a kept one),
/// aligned as storage_alignment says of its capacity; a large one is a block this thread's cache
/// kept if one fits, else a new one, advised as huge pages from 2 MiB.
/// @post *cap is the block's capacity: release it with release_storage(p, *cap).
/// Example: 3 MiB -> a kept block of 4 MiB, or a new 4 MiB block on a 2 MiB boundary (one of
/// 6 MiB is more than a quarter too large to be taken).
/// @throws std::bad_alloc
inline void* allocate_storage(std::size_t bytes, std::size_t* cap) {
  *cap = storage_capacity(bytes);
  if (!large_block(*cap)) return detail::new_small_block(*cap);
  const std::size_t align = storage_alignment(*cap);
  if (detail::block_cache* const c = detail::block_cache::mine())
    if (void* const kept = c->take(*cap, cap)) return kept;
  void* const p = ::operator new(*cap, std::align_val_t{align});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == huge_page_bytes) (void)::madvise(p, *cap, MADV_HUGEPAGE);
#endif
  return p;
}

/// Frees a block of allocate_storage, given its capacity; a large one goes to this thread's
/// cache (while the thread has one).
inline void release_storage(void* p, std::size_t cap) noexcept {
  detail::block_cache* const c = large_block(cap) ? detail::block_cache::mine() : nullptr;
  if (c)
    c->put(p, cap);
  else
    detail::free_block(p, cap);
}

/// Frees the large blocks that the calling thread's cache keeps (a program that is done with
/// large tensors and wants the memory back; a thread's cache is freed when the thread ends).
inline void release_cached_storage() {
  if (detail::block_cache* const c = detail::block_cache::mine()) c->clear();
}

}  // namespace lazyview
