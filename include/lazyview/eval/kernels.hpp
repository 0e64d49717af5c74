#pragma once
// The general kernel: a copy_plan with div/mod segment loops or stacked levels, which only
// chains that need them reach (plain plans go to the engine, eval/engine.hpp). Index arithmetic
// per element, confined to those plans.
#include <cstring>
#include <type_traits>

#include "plan.hpp"

namespace lazyview {

/// Outer iterations of a plan: the product of all loops but the innermost.
constexpr index_t outer_count(const copy_plan& p) {
  return product_of(p.nloops - 1, [&](int k) { return p.loops[k].n; });
}

/// Runs outer iterations [first, last) of any plan (segments and stacked levels included), on
/// elements of `size` bytes. lv[0..nlev-1) are the levels below the plan's source level.
inline void run_general(const copy_plan& p, const level* lv, int nlev, const char* src, char* dst, std::size_t size,
                        index_t first, index_t last) {
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
        for (int k = nlev - 1; k >= 0; --k) so = level_offset_flat(lv[k], so);
      std::memcpy(dst + d_o * static_cast<index_t>(size), src + so * static_cast<index_t>(size), size);
    }
  }
}

}  // namespace lazyview
