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
/// The source's first element is src + offset (elements; a gather's select index or slice start),
/// the destination's dst + dst_offset (a scatter's).
struct loop_geometry {
  std::vector<index_t> n, ss, ds;
  index_t offset = 0;
  index_t dst_offset = 0;
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

/// The strided view of a gather or scatter workload over the contiguous tensor of sizes w.in as
/// sizes (== w.out; (1, n) for a 1-D out, as the loops take ranks >= 2), strides (in ss) and offset,
/// in elements: x.select(d, i) drops dim d and starts i * stride[d] in; x.slice(d, a, b, k) starts
/// a * stride[d] in and multiplies stride[d] by k. ds is row-major over n.
inline loop_geometry view_geometry(const workload& w) {
  if (w.kind != workload::strided_gather && w.kind != workload::strided_scatter)
    throw std::logic_error("view_geometry of a workload that is neither a gather nor a scatter");
  const auto d = static_cast<std::size_t>(w.gather.dim);
  loop_geometry g;
  g.n = w.in;
  g.ss = row_major(w.in);
  g.offset = w.gather.start * g.ss[d];
  if (w.gather.select) {
    g.n.erase(g.n.begin() + w.gather.dim);
    g.ss.erase(g.ss.begin() + w.gather.dim);
  } else {
    g.n[d] = (w.gather.end - w.gather.start + w.gather.step - 1) / w.gather.step;
    g.ss[d] *= w.gather.step;
  }
  if (g.n != w.out) throw std::logic_error("view_geometry: the view's sizes differ from the workload's out");
  if (g.n.size() == 1) {  // a 1-D result (a 2-D source's select): one row
    g.n.insert(g.n.begin(), 1);
    g.ss.insert(g.ss.begin(), 0);
  }
  g.ds = row_major(g.n);
  return g;
}

/// A gather's loop: the view (see view_geometry) read into a contiguous destination.
inline loop_geometry gather_geometry(const workload& w) {
  if (w.kind != workload::strided_gather) throw std::logic_error("gather_geometry of a workload that is no gather");
  return view_geometry(w);
}

/// A scatter's loop: a contiguous source (sizes w.out) written into the view of the destination
/// buffer (sizes w.in): view_geometry with the roles swapped (source row-major, destination strided).
inline loop_geometry scatter_geometry(const workload& w) {
  if (w.kind != workload::strided_scatter) throw std::logic_error("scatter_geometry of a workload that is no scatter");
  loop_geometry g = view_geometry(w);
  std::swap(g.ss, g.ds);
  std::swap(g.offset, g.dst_offset);
  return g;
}

inline loop_geometry geometry(const workload& w, bool dst_order) {
  if (w.kind == workload::strided_gather) {
    // A gather has one loop order: the source's elements are not contiguous to scatter from.
    if (!dst_order) throw std::logic_error("a gather has no source-order loop");
    return gather_geometry(w);
  }
  if (w.kind == workload::strided_scatter) {
    // A scatter has one loop order too: the destination's elements are not contiguous to gather into.
    if (dst_order) throw std::logic_error("a scatter has no destination-order loop");
    return scatter_geometry(w);
  }
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
  src += g.offset;
  dst += g.dst_offset;
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

/// A gather into a (rows, cols) destination as written by hand: d[r][j] = s[r * row + j * K] for
/// rows [r0, r1), with the step K a compile-time constant (K == 0: the run-time `step`), so that
/// the compiler can vectorise the constant-stride loads, the fair peer (-fopt-info-vec: g++ 12 -O3
/// -march=native vectorises the inner loop for the cases' u8 K = 3, 4, bf16 K = 2, fp32 K = 2, 3).
/// s is the view's first element.
template <class T, index_t K>
void gather_rows(const T* __restrict s, T* __restrict d, index_t row, index_t cols, index_t step, index_t r0,
                 index_t r1) {
  const index_t k = K ? K : step;
  for (index_t r = r0; r < r1; ++r) {
    const T* __restrict sr = s + r * row;
    T* __restrict dr = d + r * cols;
    for (index_t j = 0; j < cols; ++j) dr[j] = sr[j * k];
  }
}

/// Runs gather_rows over a 2-D gather's geometry (see gather_geometry) on `threads` pool threads,
/// rows split as run_nest splits its first dim (one thread below single_thread_bytes written).
template <class T, index_t K>
void run_gather_rows(const loop_geometry& g, const T* src, T* dst, int threads) {
  const index_t rows = g.n[0], cols = g.n[1], row = g.ss[0], step = g.ss[1];
  if (static_cast<std::size_t>(rows * cols) * sizeof(T) < single_thread_bytes || rows < threads) threads = 1;
  src += g.offset;
  if (threads <= 1) {
    gather_rows<T, K>(src, dst, row, cols, step, 0, rows);
    return;
  }
  pool_run(threads, [&](int i, int n) {
    index_t lo, hi;
    split(rows, i, n, lo, hi);
    gather_rows<T, K>(src, dst, row, cols, step, lo, hi);
  });
}

/// A scatter from a contiguous (rows, cols) source as written by hand: d[r * row + j * K] = s[r][j] for
/// rows [r0, r1), with the step K a compile-time constant (K == 0: the run-time `step`), the mirror of
/// gather_rows; and, where Cols != 0, the row length a compile-time constant too, so that a short row
/// is a run of Cols assignments (x[:, :3] = rgb of a last dim of 4: d[4r] = s[3r], d[4r+1] = s[3r+1],
/// d[4r+2] = s[3r+2], what one writes by hand) rather than a loop of 3. d is the view's first element.
template <class T, index_t K, index_t Cols>
void scatter_rows(const T* __restrict s, T* __restrict d, index_t row, index_t cols, index_t step, index_t r0,
                  index_t r1) {
  const index_t k = K ? K : step;
  const index_t c = Cols ? Cols : cols;
  for (index_t r = r0; r < r1; ++r) {
    const T* __restrict sr = s + r * c;
    T* __restrict dr = d + r * row;
    if constexpr (Cols != 0) {
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        ((dr[static_cast<index_t>(J) * k] = sr[J]), ...);
      }(std::make_index_sequence<static_cast<std::size_t>(Cols)>{});
    } else {
      for (index_t j = 0; j < c; ++j) dr[j * k] = sr[j];
    }
  }
}

/// Runs scatter_rows over a 2-D scatter's geometry (see scatter_geometry) on `threads` pool threads,
/// rows split as run_gather_rows splits them (one thread below single_thread_bytes written).
template <class T, index_t K, index_t Cols>
void run_scatter_rows(const loop_geometry& g, const T* src, T* dst, int threads) {
  const index_t rows = g.n[0], cols = g.n[1], row = g.ds[0], step = g.ds[1];
  if (static_cast<std::size_t>(rows * cols) * sizeof(T) < single_thread_bytes || rows < threads) threads = 1;
  src += g.offset;
  dst += g.dst_offset;
  if (threads <= 1) {
    scatter_rows<T, K, Cols>(src, dst, row, cols, step, 0, rows);
    return;
  }
  pool_run(threads, [&](int i, int n) {
    index_t lo, hi;
    split(rows, i, n, lo, hi);
    scatter_rows<T, K, Cols>(src, dst, row, cols, step, lo, hi);
  });
}

}  // namespace lvb
