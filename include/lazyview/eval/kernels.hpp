#pragma once
// Kernels that run a copy_plan over a range of its outer iterations. The plain kernel walks the
// loops with an odometer and copies the innermost run in a tight loop (memcpy when both sides
// are unit-stride); the general kernel adds div/mod for segment loops and level mapping for
// stacked levels, and is only used where the fold needed them.
#include <cstring>
#include <type_traits>

#include "plan.hpp"

namespace lazyview {

namespace detail {

/// Copies n elements with the given strides.
template <class T>
inline void copy_run(const T* __restrict s, T* __restrict d, index_t n, index_t ss, index_t ds) {
  if (ss == 1 && ds == 1) {
    std::memcpy(static_cast<void*>(d), static_cast<const void*>(s), static_cast<std::size_t>(n) * sizeof(T));
  } else if (ds == 1) {
    for (index_t i = 0; i < n; ++i) d[i] = s[i * ss];
  } else if (ss == 1) {
    for (index_t i = 0; i < n; ++i) d[i * ds] = s[i];
  } else {
    for (index_t i = 0; i < n; ++i) d[i * ds] = s[i * ss];
  }
}

}  // namespace detail

/// Outer iterations of a plan: the product of all loops but the innermost.
constexpr index_t outer_count(const copy_plan& p) {
  index_t n = 1;
  for (int k = 0; k + 1 < p.nloops; ++k) n *= p.loops[k].n;
  return n;
}

/// Runs outer iterations [first, last) of a plain plan.
template <class T>
void run_plain(const copy_plan& p, const T* src, T* dst, index_t first, index_t last) {
  if (p.nloops == 0) {  // a single element
    if (first == 0 && last > 0) dst[p.dst_offset] = src[p.src_offset];
    return;
  }
  const int outer = p.nloops - 1;
  const loop_dim in = p.loops[outer];
  index_t idx[max_loops]{};
  index_t rem = first;
  const T* s = src + p.src_offset;
  T* d = dst + p.dst_offset;
  for (int k = outer - 1; k >= 0; --k) {
    idx[k] = rem % p.loops[k].n;
    rem /= p.loops[k].n;
    s += idx[k] * p.loops[k].ss;
    d += idx[k] * p.loops[k].ds;
  }
  for (index_t it = first; it < last; ++it) {
    detail::copy_run(s, d, in.n, in.ss, in.ds);
    for (int k = outer - 1; k >= 0; --k) {  // odometer step
      s += p.loops[k].ss;
      d += p.loops[k].ds;
      if (++idx[k] < p.loops[k].n) break;
      s -= p.loops[k].n * p.loops[k].ss;
      d -= p.loops[k].n * p.loops[k].ds;
      idx[k] = 0;
    }
  }
}

/// Runs outer iterations [first, last) of any plan (segments and stacked levels included).
template <class T, int L>
void run_general(const copy_plan& p, const fold_state<L>& src_fold, const T* src, T* dst, index_t first,
                 index_t last) {
  const int nl = p.nloops;
  const index_t inner_n = nl ? p.loops[nl - 1].n : 1;
  index_t idx[max_loops]{};
  for (index_t it = first; it < last; ++it) {
    index_t rem = it;
    for (int k = nl - 2; k >= 0; --k) {
      idx[k] = rem % p.loops[k].n;
      rem /= p.loops[k].n;
    }
    for (index_t i = 0; i < inner_n; ++i) {
      if (nl) idx[nl - 1] = i;
      index_t so = p.src_offset, d_o = p.dst_offset;
      for (int k = 0; k < nl; ++k) {
        const loop_dim& l = p.loops[k];
        if (l.seg < 0) {
          so += idx[k] * l.ss;
          d_o += idx[k] * l.ds;
        } else {
          so += p.segs[l.seg].src_offset(idx[k]);
          d_o += p.segs[l.seg].dst_offset(idx[k]);
        }
      }
      if (p.mapped)
        for (int k = src_fold.nlev - 2; k >= 0; --k) so = level_offset_flat(src_fold.lv[k], so);
      dst[d_o] = src[so];
    }
  }
}

}  // namespace lazyview
