#pragma once
// Splitting a plan's outer iterations over threads.
#include <algorithm>
#include <thread>
#include <vector>

#include "../config.hpp"

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

/// Calls f(first, last) on balanced chunks of [0, total), one per thread (the caller runs one).
template <class F>
void parallel_for(index_t total, unsigned nthreads, F&& f) {
  const index_t n = std::min<index_t>(nthreads, total);
  if (n <= 1) {
    f(index_t{0}, total);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(n - 1));
  for (index_t t = 1; t < n; ++t)
    pool.emplace_back([&f, t, n, total] { f(total * t / n, total * (t + 1) / n); });
  f(index_t{0}, total / n);
  for (auto& th : pool) th.join();
}

}  // namespace detail

}  // namespace lazyview
