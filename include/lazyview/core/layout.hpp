#pragma once
// One level of a hierarchical layout: logical dims -> offset, through modes.
//
// A level has `r` internal dims (sizes `isz`) and a list of modes (size:stride). The row-major
// index over the internal dims, decomposed row-major over the modes, gives the offset:
//   offset(i) = base + sum_j digit_j(flat(i)) * stride_j.
// Where the cumulative sizes of dims and modes meet (an "aligned boundary"), a dim owns a run of
// modes: a flat dim owns one, a hierarchical dim several ((4,3):(12,2) in FLUX pack). Where a dim
// boundary falls inside a mode that it does not divide (view(4,3).t().reshape(2,6)), the dims
// between two aligned boundaries form a segment evaluated with div/mod: [(2,6) -> (3,4):(1,3)].
// Logical dim i is internal dim perm[i]; the permutation is folded into the mode order whenever
// every segment stays contiguous and in order.
#include "small_vec.hpp"

namespace lazyview {

using mode_vec = ivals<max_modes>;

struct level {
  shape_vec isz;                  ///< internal dim sizes
  signed char perm[max_rank + 1]; ///< logical dim i -> internal dim perm[i] (when !ident; +1: room to insert)
  bool ident = true;              ///< perm is the identity
  mode_vec msize, mstride;        ///< modes, outermost first
  signed char bound[max_rank + 2];    ///< first mode of internal dim k; -1 where not aligned (+1: room to insert)
  ival offset = sv(0);            ///< added to every offset of this level

  constexpr int rank() const { return isz.n; }
  constexpr int internal(int i) const { return ident ? i : perm[i]; }
  constexpr ival logical_size(int i) const { return isz[internal(i)]; }
  /// Dim k owns a run of modes (bounded by aligned boundaries on both sides).
  constexpr bool clean(int k) const { return bound[k] >= 0 && bound[k + 1] >= 0; }
  constexpr int modes_of(int k) const { return bound[k + 1] - bound[k]; }
};

/// A flat level: one mode per dim of size > 1. Example: (2,1,4):(4,9,1) -> modes (2,4):(4,1).
constexpr void set_flat(level& l, const shape_vec& sizes, const shape_vec& strides, ival offset) {
  l.isz = sizes;
  l.ident = true;
  l.offset = offset;
  l.msize.n = l.mstride.n = 0;
  for (int k = 0; k < sizes.n; ++k) {
    l.bound[k] = static_cast<signed char>(l.msize.n);
    if (sizes[k].v != 1) {
      l.msize.push_back(sizes[k]);
      l.mstride.push_back(strides[k]);
    }
  }
  l.bound[sizes.n] = static_cast<signed char>(l.msize.n);
}

/// Splits modes at every dim boundary that divides them, coalesces modes that are contiguous
/// within one group, and records the aligned boundaries.
/// @pre numel > 0 and product(isz) == product(msize).
/// @post offsets unchanged for every index; returns false (level untouched) if the modes would
///       exceed max_modes.
/// Example: isz (1,(12),(64)) over modes (4,3,16,2,2):(12,2,48,6,1) gives groups
///          (1,(4,3),(16,2,2)); isz (2,6) over (3,4):(1,3) gives one segment [(2,6)->(3,4):(1,3)].
constexpr bool align(level& l) {
  ival os[2 * max_modes], ot[2 * max_modes];  // emitted modes, innermost first
  int no = 0;
  int bpos[max_rank + 1];  // boundary positions counted from the inner end, -1 if unaligned
  int last_bound = 0;      // inner-end position of the most recent aligned boundary
  int j = l.msize.n - 1;
  ival cur_m{}, cur_s{};
  bool have = false;
  auto next = [&] {
    while (j >= 0 && l.msize[j].v == 1) --j;
    have = j >= 0;
    if (have) {
      cur_m = l.msize[j];
      cur_s = l.mstride[j];
      --j;
    }
  };
  auto emit = [&](ival m, ival s) {
    if (m.v == 1) return;
    if (no > last_bound && ot[no - 1].v * os[no - 1].v == s.v) {  // contiguous with the inner one
      os[no - 1] = os[no - 1] * m;
      return;
    }
    os[no] = m;
    ot[no] = s;
    ++no;
  };
  next();
  index_t acc = 1, target = 1;
  const int r = l.isz.n;
  bpos[r] = 0;
  for (int b = r - 1; b >= 0; --b) {
    target *= l.isz[b].v;
    while (acc < target && have) {
      if (acc * cur_m.v <= target) {
        emit(cur_m, cur_s);
        acc *= cur_m.v;
        next();
      } else if (target % acc == 0 && cur_m.v % (target / acc) == 0) {
        ival f = ival{target / acc, cur_m.s};
        emit(f, cur_s);
        acc *= f.v;
        cur_m = cur_m / f;
        cur_s = cur_s * f;
      } else {
        break;
      }
      if (no >= max_modes) return false;
    }
    if (acc == target) {
      bpos[b] = no;
      last_bound = no;
    } else {
      bpos[b] = -1;
    }
  }
  l.msize.n = l.mstride.n = no;
  for (int i = 0; i < no; ++i) {
    l.msize[i] = os[no - 1 - i];
    l.mstride[i] = ot[no - 1 - i];
  }
  for (int b = 0; b <= r; ++b) l.bound[b] = static_cast<signed char>(bpos[b] < 0 ? -1 : no - bpos[b]);
  return true;
}

/// First internal dim of the segment containing internal dim k, and one past its last.
constexpr void segment_of(const level& l, int k, int& first, int& last) {
  first = k;
  while (l.bound[first] < 0) --first;
  last = k + 1;
  while (l.bound[last] < 0) ++last;
}

/// Moves the permutation into the mode order when every multi-dim segment keeps its dims
/// adjacent and in order. @post on true, ident and aligned.
/// Example: internal (2,3):(3,1), perm (1,0) -> (3,2):(1,3), identity.
constexpr bool normalize(level& l) {
  if (l.ident) return true;
  const int r = l.isz.n;
  mode_vec ns{}, nt{};
  shape_vec nsz{};
  nsz.n = r;
  bool consumed[max_rank]{};
  for (int i = 0; i < r; ++i) {
    const int k = l.perm[i];
    nsz[i] = l.isz[k];
    if (l.isz[k].v == 1 || consumed[k]) continue;
    int first, last;
    segment_of(l, k, first, last);
    int head = first;
    while (l.isz[head].v == 1) ++head;
    if (k != head) return false;  // a segment entered in its middle
    // The segment's other dims of size > 1 must follow in logical order (size-1 dims may sit
    // between them: they move no data).
    int ii = i + 1;
    for (int kk = k + 1; kk < last; ++kk) {
      if (l.isz[kk].v == 1) continue;
      while (ii < r && l.isz[l.perm[ii]].v == 1) ++ii;
      if (ii >= r || l.perm[ii] != kk) return false;
      consumed[kk] = true;
      ++ii;
    }
    for (int m = l.bound[first]; m < l.bound[last]; ++m) {
      ns.push_back(l.msize[m]);
      nt.push_back(l.mstride[m]);
    }
  }
  l.isz = nsz;
  l.msize = ns;
  l.mstride = nt;
  l.ident = true;
  return align(l);
}

/// Offset of the row-major index `flat` of this level, decomposed over modes [m0, m1).
constexpr index_t decompose(const level& l, index_t flat, int m0, int m1) {
  index_t off = 0;
  for (int m = m1 - 1; m >= m0; --m) {
    off += (flat % l.msize[m].v) * l.mstride[m].v;
    flat /= l.msize[m].v;
  }
  return off;
}

/// Offset (without l.offset) of logical multi-index idx in level l.
constexpr index_t level_offset(const level& l, const index_t* idx) {
  index_t flat = 0;
  if (l.ident) {
    for (int k = 0; k < l.isz.n; ++k) flat = flat * l.isz[k].v + idx[k];
  } else {
    index_t in[max_rank]{};
    for (int i = 0; i < l.isz.n; ++i) in[l.perm[i]] = idx[i];
    for (int k = 0; k < l.isz.n; ++k) flat = flat * l.isz[k].v + in[k];
  }
  return decompose(l, flat, 0, l.msize.n);
}

/// Offset of the logical row-major index `f` of level l (used for lower levels, whose logical
/// space is the virtual contiguous buffer the level above addresses).
constexpr index_t level_offset_flat(const level& l, index_t f) {
  if (l.ident) return l.offset.v + decompose(l, f, 0, l.msize.n);
  index_t idx[max_rank]{};
  for (int i = l.isz.n - 1; i >= 0; --i) {
    const index_t n = l.isz[l.perm[i]].v;
    idx[i] = f % n;
    f /= n;
  }
  return l.offset.v + level_offset(l, idx);
}

}  // namespace lazyview
