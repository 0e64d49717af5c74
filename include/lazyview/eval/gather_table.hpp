#pragma once
// Small kept nests as a table: where the plan memo keeps a loop nest (eval/nest.hpp) whose
// elements are few, whose innermost loop is short and whose destination takes them back to back,
// it also keeps each element's source offset, and a hit moves the elements by that table, one
// load of an offset, one move each, with none of the nest's loops to step.
//
// Why: a nest of short rows pays each row's loop turn and each outer loop's, beside its moves.
// The nest of a (1,3,6,6) FLUX pack fp32 ((3,3,3,2) elements of 8 bytes) ran 470 instructions
// for its 54 moves (callgrind) and 40 ns, where its table took 30-32 ns (g++ 12 -O3
// -march=native, medians of 15 x 200000 calls). Whole copies, chain built per call,
// bench/ab_headers against the nest, ROUNDS=11 BYTES=2e7, B/A medians: FLUX pack (1,3,6,6) fp32
// 1.23x, unpack 1.25x, pack (1,16,4,4) 1.22x, unpack 1.51x, bf16 pack (1,16,4,4) 1.18x,
// (3,4,2).permute(1,0,2) 1.15x; nests without a table ((8,8,4).permute(1,0,2)) 0.985x. (2-core
// Intel Xeon VM, Emerald Rapids.) Rows longer than 4 keep the nest, whose row kernels move
// several elements a step. 2-byte elements gained less, (4,16).t() bf16 1.09x, (3,40).t() 1.05x;
// bytes are left out: (4,32).t() 0.99x, (2,100).t() 1.05x (quartiles 1.005-1.17).
#include <cstring>

#include "plan_memo.hpp"

namespace lazyview {

namespace kernels {

/// Moves n elements of E bytes: element i from s + off[i] to d + i * E.
/// Four loads, then their four stores: the (1,3,6,6) table above, one element a step, ran 31.8,
/// 55.8 and 53.7 ns in three runs, four a step 30.1-32.1.
template <int E>
void gather_elements(const index_t* off, index_t n, const char* s, char* d) {
  struct cell {
    char b[E];
  };
  index_t i = 0;
  for (; i + 4 <= n; i += 4) {
    cell a, b, c, e;
    std::memcpy(&a, s + off[i], E);
    std::memcpy(&b, s + off[i + 1], E);
    std::memcpy(&c, s + off[i + 2], E);
    std::memcpy(&e, s + off[i + 3], E);
    std::memcpy(d + i * E, &a, E);
    std::memcpy(d + (i + 1) * E, &b, E);
    std::memcpy(d + (i + 2) * E, &c, E);
    std::memcpy(d + (i + 3) * E, &e, E);
  }
  for (; i < n; ++i) std::memcpy(d + i * E, s + off[i], E);
}

}  // namespace kernels

/// The kernel that moves a table of `elem`-byte elements, or nullptr for a size no table runs
/// faster (bytes: measured mixed, 0.99-1.05x). The one list of gather_table's sizes.
inline detail::engine_setup::gather_kernel gather_kernel_of(index_t elem) {
  switch (elem) {
    case 2: return kernels::gather_elements<2>;
    case 4: return kernels::gather_elements<4>;
    case 8: return kernels::gather_elements<8>;
    case 16: return kernels::gather_elements<16>;
    default: return nullptr;
  }
}

/// Writes into off the source offset of each element of nest ns, in the nest's order, and returns
/// their count, where the nest is one a table runs faster: elements of 2, 4, 8 or 16 bytes, its
/// innermost loop unrolled (4 long at most: longer rows move by row kernels, several elements a
/// step), at most engine_setup::max_offsets elements, the destination taking them back to back in
/// that order. Otherwise returns 0 (off's contents then unspecified).
/// Example: FLUX pack (1,3,6,6) fp32, nest (3,3,3,2):(48,8,144,24):(144,48,16,8) of 8 bytes
/// -> 54: 0, 24, 144, 168, 288, 312, 8, 32, ...; FLUX unpack (1,3,6,6), whose nest runs in
/// destination order too, alike; (5,8,8).permute(1,2,0) (rows of 5 turned to 64 long) -> 0.
inline index_t gather_table(const detail::nest_setup& ns, index_t* off) {
  const int n = ns.n;
  const index_t E = ns.elem;
  if (!ns.run || n < 1 || gather_kernel_of(E) == nullptr || ns.l[n - 1].n > 4) return 0;
  index_t count = 1;
  for (int k = 0; k < n; ++k) {
    count *= ns.l[k].n;
    if (count > detail::engine_setup::max_offsets) return 0;
  }
  index_t idx[max_loops] = {};
  index_t so = 0, dof = 0;
  for (index_t i = 0; i < count; ++i) {
    if (dof != i * E) return 0;
    off[i] = so;
    for (int k = n - 1; k >= 0; --k) {  // the odometer, innermost first
      so += ns.l[k].ss;
      dof += ns.l[k].ds;
      if (++idx[k] < ns.l[k].n) break;
      so -= ns.l[k].n * ns.l[k].ss;
      dof -= ns.l[k].n * ns.l[k].ds;
      idx[k] = 0;
    }
  }
  return count;
}

/// Keeps, beside setup's nest, its table where gather_table gives one (setup.gather non-null).
inline void keep_gather_table(detail::engine_setup& setup) {
  setup.gathered = gather_table(setup.nest, setup.off);
  setup.gather = setup.gathered > 0 ? gather_kernel_of(setup.nest.elem) : nullptr;
}

}  // namespace lazyview
