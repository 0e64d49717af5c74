#pragma once
// The copy plan: the source's folded layout and the destination's strides, refined onto one
// list of loop dims (size, source stride, destination stride), coalesced and ordered. Kept as its
// own stage so kernels can change without touching fold.
//
// Both sides are row-major decompositions of the same flat index: the source over its modes, the
// destination over its dims. Walking both from the inner end and splitting whichever side's mode
// the other divides gives a common refinement; a place where neither divides (a new dim cutting
// inside an old one) becomes a segment whose offsets are computed with div/mod, for that loop
// dim only.

#include <type_traits>

#include "../fold/fold.hpp"

namespace lazyview {

inline constexpr int max_loops = 2 * max_modes;

/// One loop of the plan. A segment loop (seg >= 0) maps its index through div/mod.
/// No default member initialisers, here and in segment: a plan holds room for 32 loops and 8
/// segments (about 5 KB), of which a copy uses a handful, and zeroing the rest was most of the
/// cost of planning a small copy. Only [0, nloops) and [0, nseg) are ever read.
struct loop_dim {
  index_t n, ss, ds;
  int seg;
};

/// A segment: the source and destination modes that one loop index decomposes over (row-major).
struct segment {
  int ns = 0, nd = 0;
  index_t sm[max_modes], sst[max_modes], dm[max_modes], dst[max_modes];
  constexpr index_t src_offset(index_t g) const { return digits_dot(g, sm, sst, ns); }
  constexpr index_t dst_offset(index_t g) const { return digits_dot(g, dm, dst, nd); }

 private:
  /// sum of the row-major digits of g over sizes m, times strides st.
  static constexpr index_t digits_dot(index_t g, const index_t* m, const index_t* st, int n) {
    index_t off = 0;
    for (int k = n - 1; k >= 0; --k) {
      off += (g % m[k]) * st[k];
      g /= m[k];
    }
    return off;
  }
};

/// A plan's loops, outermost first, and where they start: all of a plain plan, and all that the
/// nest and the engine read (eval/nest.hpp, eval/engine_plan.hpp).
struct loop_plan {
  int nloops = 0;
  loop_dim loops[max_loops];
  index_t src_offset = 0, dst_offset = 0;
  index_t numel = 0;

  /// The used part into `to` (the plan memo's store: loops has room for 32, a copy uses a few).
  constexpr void copy_to(loop_plan& to) const {
    to.nloops = nloops;
    for (int k = 0; k < nloops; ++k) to.loops[k] = loops[k];
    to.src_offset = src_offset;
    to.dst_offset = dst_offset;
    to.numel = numel;
  }
};

/// The plan: the loops, their segments, and how the source offset maps to memory (lower levels)
/// when the fold stacked levels. The segments' room is most of its 5 KB.
struct copy_plan : loop_plan {
  int nseg = 0;
  segment segs[max_rank];
  bool mapped = false;  ///< source offsets are virtual: map them through the lower levels

  /// True when every loop is plain strided (the fast kernels apply).
  constexpr bool plain() const { return nseg == 0 && !mapped; }
};

namespace detail {

struct mode_cursor {
  const index_t* m;
  const index_t* st;
  int j;           // next mode to take, moving outward
  index_t cur_m = 1, cur_s = 0;
  constexpr bool next() {
    while (j >= 0 && m[j] == 1) --j;
    if (j < 0) return false;
    cur_m = m[j];
    cur_s = st[j];
    --j;
    return true;
  }
};

}  // namespace detail

/// Sorts n loops by decreasing |stride(loop)|, stably: an insertion sort (constexpr, and n is
/// at most max_loops). Example: strides 4, -64, 16 -> -64, 16, 4.
template <class Loop, class Stride>
constexpr void sort_by_decreasing_stride(Loop* v, int n, Stride stride) {
  auto mag = [&](const Loop& l) { return magnitude(stride(l)); };
  for (int i = 1; i < n; ++i) {
    const Loop x = v[i];
    int j = i - 1;
    for (; j >= 0 && mag(v[j]) < mag(x); --j) v[j + 1] = v[j];
    v[j + 1] = x;
  }
}

/// Builds the plan for copying `src` (any fold) into `dst` (a view of equal sizes).
/// @pre neither is empty; src physical (materialize()); src.sizes == dst.sizes; dst.view (only
///      its sizes, strides and offset are read).
/// Example: src (4,3):(1,4) reshaped (2,6) [physical [(2,6)->(3,4):(1,3)]], dst (2,6):(6,1)
///          -> one segment loop of 12 (src div/mod over (3,4):(1,3), dst over (12):(1)).
/// The plan from the source's top level (`stacked`: it addresses lower levels, not memory) and
/// the destination's flat layout. Not a template, so each TU compiles it once.
constexpr copy_plan make_plan(const level& sl, bool stacked, const shape_vec& dsizes, const shape_vec& dstrides,
                              ival dst_offset) {
  copy_plan p;
  if (std::is_constant_evaluated()) p = copy_plan{};  // a constexpr plan is fully initialised
  p.numel = dsizes.product().v;
  p.src_offset = sl.offset.v;
  p.dst_offset = dst_offset.v;
  p.mapped = stacked;
  const int rank = dsizes.n;
  // Destination dims in the source's internal order, as modes.
  index_t dm[max_rank]{}, dst_[max_rank]{};
  for (int i = 0; i < rank; ++i) {
    const int k = sl.internal(i);
    dm[k] = dsizes[i].v;
    dst_[k] = dstrides[i].v;
  }
  index_t sm[max_modes]{}, sst[max_modes]{};
  for (int j = 0; j < sl.msize.n; ++j) {
    sm[j] = sl.msize[j].v;
    sst[j] = sl.mstride[j].v;
  }
  detail::mode_cursor a{sm, sst, sl.msize.n - 1}, b{dm, dst_, rank - 1};
  loop_dim rev[max_loops];
  int nl = 0;
  bool ha = a.next(), hb = b.next();
  while (ha && hb) {
    if (a.cur_m == b.cur_m) {
      rev[nl++] = {a.cur_m, a.cur_s, b.cur_s, -1};
      ha = a.next();
      hb = b.next();
    } else if (b.cur_m % a.cur_m == 0) {
      rev[nl++] = {a.cur_m, a.cur_s, b.cur_s, -1};
      b.cur_s *= a.cur_m;
      b.cur_m /= a.cur_m;
      ha = a.next();
    } else if (a.cur_m % b.cur_m == 0) {
      rev[nl++] = {b.cur_m, a.cur_s, b.cur_s, -1};
      a.cur_s *= b.cur_m;
      a.cur_m /= b.cur_m;
      hb = b.next();
    } else {
      // Neither divides: collect both sides until their products meet.
      segment& sg = p.segs[p.nseg];
      index_t ps = a.cur_m, pd = b.cur_m;
      index_t ssz[max_modes], sst2[max_modes], dsz[max_modes], dst2[max_modes];
      int ns = 0, nd = 0;
      ssz[ns] = a.cur_m, sst2[ns++] = a.cur_s;
      dsz[nd] = b.cur_m, dst2[nd++] = b.cur_s;
      ha = a.next();
      hb = b.next();
      while (ps != pd) {
        if (ps < pd) {
          ssz[ns] = a.cur_m, sst2[ns++] = a.cur_s;
          ps *= a.cur_m;
          ha = a.next();
        } else {
          dsz[nd] = b.cur_m, dst2[nd++] = b.cur_s;
          pd *= b.cur_m;
          hb = b.next();
        }
      }
      sg.ns = ns;
      sg.nd = nd;
      for (int q = 0; q < ns; ++q) sg.sm[q] = ssz[ns - 1 - q], sg.sst[q] = sst2[ns - 1 - q];
      for (int q = 0; q < nd; ++q) sg.dm[q] = dsz[nd - 1 - q], sg.dst[q] = dst2[nd - 1 - q];
      rev[nl++] = {ps, 0, 0, p.nseg++};
    }
  }
  // Outermost first, then coalesce loops contiguous on both sides.
  for (int i = 0; i < nl; ++i) {
    const loop_dim& d = rev[nl - 1 - i];
    if (p.nloops > 0) {
      loop_dim& o = p.loops[p.nloops - 1];
      if (o.seg < 0 && d.seg < 0 && o.ss == d.n * d.ss && o.ds == d.n * d.ds) {
        o.n *= d.n;
        o.ss = d.ss;
        o.ds = d.ds;
        continue;
      }
    }
    p.loops[p.nloops++] = d;
  }
  // Loop order: destination-sequential (outer loops by decreasing |destination stride|), which
  // keeps the unit-stride run of the destination innermost.
  if (p.nseg == 0) {
    sort_by_decreasing_stride(p.loops, p.nloops, [](const loop_dim& d) { return d.ds; });
    int w = 0;
    for (int i = 0; i < p.nloops; ++i) {
      if (w > 0) {
        loop_dim& o = p.loops[w - 1];
        const loop_dim& d = p.loops[i];
        if (o.ss == d.n * d.ss && o.ds == d.n * d.ds) {
          o.n *= d.n;
          o.ss = d.ss;
          o.ds = d.ds;
          continue;
        }
      }
      p.loops[w++] = p.loops[i];
    }
    p.nloops = w;
  }
  return p;
}

/// The plan for copying `src` (any fold) into `dst` (a view of equal sizes).
template <int L1, int L2>
constexpr copy_plan make_plan(const fold_state<L1>& src, const fold_state<L2>& dst) {
  return make_plan(src.top(), src.nlev > 1, dst.sizes, dst.strides, dst.phys ? dst.lv[0].offset : dst.offset);
}

}  // namespace lazyview
