#pragma once
// Splitting a plan's work over threads: a persistent pool (no thread creation on the hot path),
// started lazily on the first multi-threaded copy; the calling thread always takes a share.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "../config.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>  // _mm_pause
#endif

/// How long a pool worker spins for the next job before it sleeps (see thread_pool::worker_spin).
#ifndef LAZYVIEW_POOL_SPIN_US
#define LAZYVIEW_POOL_SPIN_US 100
#endif

namespace lazyview {

/// Number of threads for copy(); 0 means std::thread::hardware_concurrency().
struct threads {
  unsigned n = 1;
};

namespace detail {

inline unsigned resolve_threads(threads t) {
  if (t.n == 0) return std::max(1u, std::thread::hardware_concurrency());
  return t.n;
}

/// A pool of workers that run chunks of one job at a time.
class thread_pool {
 public:
  static thread_pool& instance() {
    static thread_pool pool;
    return pool;
  }

  /// Calls f(first, last) on `parts` balanced chunks of [0, total), on up to `parts` threads
  /// (the caller included). Jobs from different caller threads are serialised.
  template <class F>
  void run(index_t total, index_t parts, F& f) {
    std::lock_guard<std::mutex> serial(job_mutex_);
    grow(static_cast<unsigned>(parts - 1));
    std::unique_lock<std::mutex> lk(m_);
    job_ = {&invoke<F>, &f, total, parts};
    next_ = 1;  // chunk 0 is the caller's
    pending_ = parts - 1;
    generation_.fetch_add(1, std::memory_order_release);
    const bool wake = sleepers_ > 0;
    lk.unlock();
    if (wake) cv_.notify_all();
    f(index_t{0}, total / parts);
    await_workers(parts);
    lk.lock();
    drain(lk);
    done_cv_.wait(lk, [&] { return pending_ == 0; });
  }

  /// Workers started so far: the most threads a job has asked for, less its caller.
  std::size_t size() {
    std::lock_guard<std::mutex> serial(job_mutex_);
    return workers_.size();
  }

  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

 private:
  struct job {
    void (*call)(void*, index_t, index_t) = nullptr;
    void* fn = nullptr;
    index_t total = 0, parts = 1;
  };
  template <class F>
  static void invoke(void* f, index_t a, index_t b) {
    (*static_cast<F*>(f))(a, b);
  }

  /// Spins while the workers are on their way, before the caller takes over unclaimed chunks
  /// and sleeps. A chunk taken over moves its data between two cores' caches, and sleeping adds
  /// a wake-up: FLUX pack (1,16,128,128) fp32 at 2 threads took 107 us either way on the 2-core
  /// VM, 38 us with this wait, 44 us on 1 thread. Bounds: 100 us for a worker to claim its
  /// chunk (a wake-up took about 20 us), 2 ms for claimed chunks to finish.
  void await_workers(index_t parts) {
    spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; }, [&] {
      const bool unclaimed = next_.load(std::memory_order_acquire) < parts;
      return unclaimed ? std::chrono::microseconds(100) : std::chrono::microseconds(2000);
    });
  }

  /// Spins (pausing) until done() or, checked every 64 rounds, until longer than bound() has
  /// passed since the start: the caller's wait for workers and a worker's wait for a job.
  template <class Done, class Bound>
  static void spin_until(Done done, Bound bound) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned i = 1; !done(); ++i) {
#if defined(__x86_64__) || defined(_M_X64)
      _mm_pause();
#endif
      if (i % 64 == 0 && std::chrono::steady_clock::now() - start > bound()) return;
    }
  }

  /// Takes chunks of the current job until none is left. Chunks are claimed under the lock, so
  /// a worker never pairs a chunk of one job with the function of another.
  void drain(std::unique_lock<std::mutex>& lk) {
    while (next_ < job_.parts) {
      const index_t c = next_++;
      const job j = job_;
      lk.unlock();
      j.call(j.fn, j.total * c / j.parts, j.total * (c + 1) / j.parts);
      lk.lock();
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }

  void grow(unsigned n) {
    while (workers_.size() < n) workers_.emplace_back([this] { loop(); });
  }

  /// Between jobs a worker spins for worker_spin before it sleeps: copies that come back to
  /// back (a model's layers) then find it awake, and the caller makes no system call to wake
  /// it. Woken through the condition variable, a worker of the 2-core Zen 5 VM of
  /// docs/benchmarks.md cost dynamic FLUX pack (1,16,128,128) fp32 at 2 threads about 6 us to
  /// post the job (the wake-up call) and 4-7 us more before it started, of a 34 us copy whose
  /// halves took 19 us each (37 us on 1 thread); with the spin, 20-22 us (medians of 2000 calls
  /// in a row). In bench/, 2 threads, GB/s, medians of 3 alternated runs: that copy 80 -> 135,
  /// (1,16,256,256) 100 -> 134, unpack (1,16,128,128) 80 -> 130. The bound keeps an idle pool
  /// off the cores: OpenMP runtimes spin longer (libgomp's GOMP_SPINCOUNT, KMP_BLOCKTIME's
  /// 200 ms).
  static constexpr std::chrono::microseconds worker_spin{LAZYVIEW_POOL_SPIN_US};

  void loop() {
    unsigned long seen = 0;
    for (;;) {
      spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; }, [] { return worker_spin; });
      std::unique_lock<std::mutex> lk(m_);
      ++sleepers_;
      cv_.wait(lk, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
      --sleepers_;
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      drain(lk);
    }
  }

  std::mutex job_mutex_, m_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  job job_;
  // Written under m_; read without it by await_workers (next_, pending_) and by spinning
  // workers (generation_).
  std::atomic<index_t> next_{0};
  std::atomic<index_t> pending_{0};
  std::atomic<unsigned long> generation_{0};
  int sleepers_ = 0;  // workers in cv_.wait, or about to be: under m_
  bool stop_ = false;
};

/// Calls f(first, last) on balanced chunks of [0, total), one per thread.
template <class F>
void parallel_for(index_t total, unsigned nthreads, F&& f) {
  const index_t n = std::min<index_t>(nthreads, total);
  if (n <= 1) {
    f(index_t{0}, total);
    return;
  }
  thread_pool::instance().run(total, n, f);
}

}  // namespace detail

}  // namespace lazyview
