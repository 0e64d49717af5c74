#pragma once
// Plain nested loops (what one writes by hand without lazyview), with compile-time depth and
// run-time sizes, and a rank dispatch helper.
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "common.hpp"

namespace lvb {

/// Calls f(std::integral_constant<int, K>{}) for the run-time rank k in [2, 6].
template <class F>
decltype(auto) dispatch_rank(std::size_t k, F&& f) {
  switch (k) {
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 5: return f(std::integral_constant<int, 5>{});
    case 6: return f(std::integral_constant<int, 6>{});
    default: throw std::runtime_error("rank outside [2, 6]");
  }
}

/// A K-deep loop nest over sizes n[] reading s at strides ss[] and writing d at strides ds[].
/// Dim `sd` runs only over [lo, hi) (the thread split). DstOrder: ds[K-1] == 1 (destination
/// order: gather); otherwise ss[K-1] == 1 (source order: scatter).
template <class T, int K, bool DstOrder>
struct nest {
  const index_t* n;
  const index_t* ss;
  const index_t* ds;
  int sd;
  index_t lo, hi;

  template <int D>
  void go(const T* __restrict s, T* __restrict d) const {
    const index_t a = D == sd ? lo : 0, b = D == sd ? hi : n[D];
    if constexpr (D == K - 1) {
      if constexpr (DstOrder) {
        const index_t st = ss[D];
        for (index_t i = a; i < b; ++i) d[i] = s[i * st];
      } else {
        const index_t st = ds[D];
        for (index_t i = a; i < b; ++i) d[i * st] = s[i];
      }
    } else {
      for (index_t i = a; i < b; ++i) go<D + 1>(s + i * ss[D], d + i * ds[D]);
    }
  }
};

/// The loop geometry of a workload: destination order (loop over the permuted sizes, gather
/// from the source) or source order (loop over the view sizes, scatter into the destination).
struct loop_geometry {
  std::vector<index_t> n, ss, ds;
};

inline std::vector<index_t> row_major(const std::vector<index_t>& s) {
  std::vector<index_t> st(s.size());
  index_t acc = 1;
  for (std::size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

inline loop_geometry geometry(const workload& w, bool dst_order) {
  const std::vector<index_t> P = w.permuted();
  const std::vector<index_t> vs = row_major(w.view), ps = row_major(P);
  const std::size_t k = w.perm.size();
  loop_geometry g;
  if (dst_order) {
    g.n = P;
    g.ds = ps;
    g.ss.resize(k);
    for (std::size_t i = 0; i < k; ++i) g.ss[i] = vs[static_cast<std::size_t>(w.perm[i])];
  } else {
    g.n = w.view;
    g.ss = vs;
    g.ds.resize(k);
    for (std::size_t i = 0; i < k; ++i) g.ds[static_cast<std::size_t>(w.perm[i])] = ps[i];
  }
  return g;
}

/// Runs the loop nest on `threads` pool threads, split on the first dim with >= threads iterations.
template <class T, int K, bool DstOrder>
void run_nest(const loop_geometry& g, const T* src, T* dst, int threads) {
  index_t numel = 1;
  for (index_t s : g.n) numel *= s;
  if (static_cast<std::size_t>(numel) * sizeof(T) < single_thread_bytes) threads = 1;
  int sd = -1;
  for (int d = 0; d < K && threads > 1; ++d)
    if (g.n[static_cast<std::size_t>(d)] >= threads) {
      sd = d;
      break;
    }
  if (sd < 0) {
    nest<T, K, DstOrder>{g.n.data(), g.ss.data(), g.ds.data(), 0, 0, g.n[0]}.template go<0>(src, dst);
    return;
  }
  pool_run(threads, [&](int i, int n) {
    index_t lo, hi;
    split(g.n[static_cast<std::size_t>(sd)], i, n, lo, hi);
    nest<T, K, DstOrder>{g.n.data(), g.ss.data(), g.ds.data(), sd, lo, hi}.template go<0>(src, dst);
  });
}

}  // namespace lvb
