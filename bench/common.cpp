// Buffers, the baseline thread pool, memcpy and streaming copies.
#include "common.hpp"

#include <immintrin.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace lvb {

// ---- buffers ------------------------------------------------------------------------------------

void buffer::allocate(std::size_t bytes) {
  std::free(p);
  p = nullptr;
  n = bytes;
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, rounded ? rounded : 64);  // map the pages now, not inside a timed loop
}
buffer::~buffer() { std::free(p); }

namespace {

/// Pattern that is never a NaN or Inf, as fp32 or as bf16 (bit 14 of every 16-bit word is 0). As
/// u8 it is as good a check: low bytes take all 256 values and high bytes 128 (bit 6 clear), mixed
/// from the whole index, so a misplaced byte differs from the right one 99.5% of the time.
void fill_pattern(void* p, std::size_t bytes) {
  auto* w = static_cast<std::uint16_t*>(p);
  const std::size_t n = bytes / 2;
  for (std::size_t k = 0; k < n; ++k) {
    std::uint32_t h = static_cast<std::uint32_t>(k) * 2654435761u;
    h ^= h >> 15;
    w[k] = static_cast<std::uint16_t>(h & 0x3FFFu) | static_cast<std::uint16_t>((h >> 2) & 0x8000u);
  }
}

}  // namespace

case_buffers& buffers_for(std::size_t bytes) {
  // One set, grown on demand: the source pattern depends only on the byte index, so a larger
  // buffer serves every smaller case with the same bytes.
  static std::unique_ptr<case_buffers> cur;
  if (!cur || cur->src.n < bytes) {
    cur.reset();  // free the old set first
    cur = std::make_unique<case_buffers>();
    cur->src.allocate(bytes);
    cur->dst.allocate(bytes);
    cur->ref.allocate(bytes);
    fill_pattern(cur->src.p, bytes);
  }
  return *cur;
}

// ---- pool ---------------------------------------------------------------------------------------

namespace {

/// Spins (pausing) until done() or, checked every 64 rounds, until `bound` has passed.
template <class Done>
void spin_until(Done done, std::chrono::microseconds bound) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1; !done(); ++i) {
    _mm_pause();
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > bound) return;
  }
}

/// Waits as lazyview's pool does (lazyview::detail::thread_pool), so that at 2 threads the
/// baselines and lazyview pay the same hand-off: a worker spins pool_spin for the next job
/// before it blocks on a futex, and the caller spins up to pool_wait for the workers to finish.
/// With workers that blocked right away, every call paid a wake-up that lazyview's spinning
/// workers do not: in docs/benchmarks.md a memcpy of 1 MiB ran at 50 GB/s on 2 threads against
/// 92 on 1, and lazyview's FLUX rows of 1 and 4 MiB at 2 threads read 1.3-3.2x the best copy.
class pool_t {
 public:
  static constexpr std::chrono::microseconds pool_spin{100}, pool_wait{2000};

  ~pool_t() {
    stop_.store(true);
    epoch_.fetch_add(1, std::memory_order_release);
    epoch_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void run(int n, const std::function<void(int, int)>& f) {
    if (n <= 1) {
      f(0, 1);
      return;
    }
    ensure(n - 1);
    job_ = &f;
    njob_ = n;
    pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);
    epoch_.notify_all();
    f(0, n);
    spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; }, pool_wait);
    for (int p; (p = pending_.load(std::memory_order_acquire)) != 0;) pending_.wait(p, std::memory_order_acquire);
  }

 private:
  void ensure(int k) {
    while (static_cast<int>(workers_.size()) < k) {
      const int id = static_cast<int>(workers_.size()) + 1;
      const std::uint32_t seen = epoch_.load();
      workers_.emplace_back([this, id, seen] { loop(id, seen); });
    }
  }

  void loop(int id, std::uint32_t seen) {
    for (;;) {
      spin_until([&] { return epoch_.load(std::memory_order_acquire) != seen; }, pool_spin);
      while (epoch_.load(std::memory_order_acquire) == seen) epoch_.wait(seen, std::memory_order_acquire);
      seen = epoch_.load(std::memory_order_acquire);
      if (stop_.load()) return;
      if (id < njob_) (*job_)(id, njob_);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_all();
    }
  }

  std::atomic<std::uint32_t> epoch_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int, int)>* job_ = nullptr;
  int njob_ = 0;
  std::vector<std::thread> workers_;
};

pool_t& the_pool() {
  static pool_t p;
  return p;
}

}  // namespace

void pool_run(int n, const std::function<void(int, int)>& f) { the_pool().run(n, f); }

// ---- copies -------------------------------------------------------------------------------------

namespace {

/// Non-temporal stores of the widest vectors the target has; unaligned loads.
void stream_copy(void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t head = (64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) & 63;
  if (head >= bytes) {
    std::memcpy(d, s, bytes);
    return;
  }
  std::memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i + 256 <= bytes; i += 256) {
    const __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
    const __m512i c = _mm512_loadu_si512(s + i + 128), e = _mm512_loadu_si512(s + i + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i), a);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 192), e);
  }
#elif defined(__AVX__)
  for (; i + 128 <= bytes; i += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
  }
#else
  for (; i + 64 <= bytes; i += 64) {
    for (int k = 0; k < 4; ++k) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16 * k));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16 * k), a);
    }
  }
#endif
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
  _mm_sfence();
}

}  // namespace

void memcpy_mt(void* dst, const void* src, std::size_t bytes, int threads) {
  if (threads <= 1 || bytes < single_thread_bytes) {
    std::memcpy(dst, src, bytes);
    return;
  }
  pool_run(threads, [&](int i, int n) {
    // Split on cache-line boundaries.
    const std::size_t lines = (bytes + 63) / 64;
    const std::size_t a = std::min(bytes, lines * static_cast<std::size_t>(i) / static_cast<std::size_t>(n) * 64);
    const std::size_t b =
        std::min(bytes, lines * static_cast<std::size_t>(i + 1) / static_cast<std::size_t>(n) * 64);
    std::memcpy(static_cast<char*>(dst) + a, static_cast<const char*>(src) + a, b - a);
  });
}

void stream_copy_mt(void* dst, const void* src, std::size_t bytes, int threads) {
  if (threads <= 1 || bytes < single_thread_bytes) {
    stream_copy(dst, src, bytes);
    return;
  }
  pool_run(threads, [&](int i, int n) {
    const std::size_t lines = (bytes + 63) / 64;
    const std::size_t a = std::min(bytes, lines * static_cast<std::size_t>(i) / static_cast<std::size_t>(n) * 64);
    const std::size_t b =
        std::min(bytes, lines * static_cast<std::size_t>(i + 1) / static_cast<std::size_t>(n) * 64);
    stream_copy(static_cast<char*>(dst) + a, static_cast<const char*>(src) + a, b - a);
  });
}

}  // namespace lvb
