#pragma once
// The fold state: what PyTorch would show (sizes, strides, whether the result aliases the base)
// next to the physical layout that evaluation reads (levels of hierarchical layouts).
//
// The two agree while the chain is a view. After a reshape that PyTorch would copy, every rule
// (view, is_contiguous, strides()) keeps running on the PyTorch side, which is row-major from the
// copy on, while the physical side keeps addressing the original memory: its modes split and
// regroup, and where no single level can express an op, a new level is stacked that addresses the
// level below as a virtual row-major buffer (tinygrad's ShapeTracker, in layout-algebra terms).
#include "../core/layout.hpp"
#include "view_rule.hpp"

namespace lazyview {

/// @tparam L capacity in levels; a chain of n ops never needs more than n + 1, and one that
///         stays a view needs one (fold.hpp's levels_of). L = 0 keeps PyTorch's side only (the
///         physical side is never materialized): a dynamic op's check.
template <int L>
struct fold_state {
  shape_vec sizes;     ///< logical sizes
  shape_vec strides;   ///< the strides PyTorch would show
  ival offset = sv(0); ///< PyTorch's storage offset from the base (while view)
  bool view = true;    ///< aliases the base (PyTorch returned views all along)
  bool empty = false;  ///< numel == 0: the physical side is not maintained
  bool phys = false;   ///< lv[] is maintained; while false the layout is (sizes):(strides)+offset
  int nlev = 1;
  level lv[L > 0 ? L : 1];  ///< lv[nlev-1] maps the logical dims; lv[0] maps into base memory
  error_info error;

  static constexpr int capacity = L;
  /// The level that maps the logical dims. There is always one (nlev starts at 1 and push_level
  /// stays under L); saying so spares g++ -O3 a false -Warray-bounds on lv[-1] once it inlines
  /// a dynamic fold (tests/headers/warnings_o3.cpp).
  constexpr level& top() { return lv[top_index()]; }
  constexpr const level& top() const { return lv[top_index()]; }
  constexpr int top_index() const {
    LAZYVIEW_ASSUME(nlev >= 1 && nlev <= (L > 0 ? L : 1));
    return nlev - 1;
  }
  constexpr int rank() const { return sizes.n; }
  constexpr ival numel() const { return sizes.product(); }
  constexpr bool contiguous() const { return is_contiguous_layout(sizes, strides); }
};

/// Whether s maintains its physical levels: never at capacity 0, which g++ then sees at compile
/// time. Every physical op starts with this test, so a dynamic node's check (a state of capacity
/// 0, fold/fold.hpp's shown_after) compiles without the level code it never runs: g++ 12 -O3 -Wall
/// otherwise warned of writes past lv[0] (-Wstringop-overflow) on any chain with a slice.
/// Example: fold_state<0> -> false; fold_state<2> after a copying reshape -> true.
template <int L>
constexpr bool physical_side(const fold_state<L>& s) {
  return L > 0 && s.phys;
}

/// Starts maintaining the physical levels: a view's layout is its flat PyTorch layout. Views
/// skip this (their fold is PyTorch's arithmetic only); the first copying reshape, evaluation
/// and printing call it.
template <int L>
constexpr void materialize(fold_state<L>& s) {
  if (L == 0 || s.phys) return;
  set_flat(s.lv[0], s.sizes, s.strides, s.offset);
  s.nlev = 1;
  s.phys = true;
}

/// Widens a state to a larger level capacity (a static prefix folded at compile time, continued
/// by dynamic ops). Copies the levels in use only: a state has room for one per op (about 700
/// bytes each), and copying all of them was a large part of a small copy's fixed cost.
template <int L2, int L1>
constexpr fold_state<L2> widen(const fold_state<L1>& s) {
  static_assert(L2 >= L1);
  fold_state<L2> r;
  if (std::is_constant_evaluated()) r = fold_state<L2>{};  // a constexpr state is fully initialised
  r.sizes = s.sizes;
  r.strides = s.strides;
  r.offset = s.offset;
  r.view = s.view;
  r.empty = s.empty;
  r.phys = s.phys;
  r.nlev = s.nlev;
  if (s.phys)
    for (int i = 0; i < s.nlev; ++i) r.lv[i] = s.lv[i];
  r.error = s.error;
  return r;
}

/// A copy of s with its physical levels maintained.
template <int L>
constexpr fold_state<L> physical(const fold_state<L>& s) {
  fold_state<L> r = widen<L>(s);
  materialize(r);
  return r;
}

/// A leaf: sizes and strides into the base pointer.
template <int L>
constexpr void fold_leaf(fold_state<L>& s, const shape_vec& sizes, const shape_vec& strides) {
  s.sizes = sizes;
  s.strides = strides;
  s.offset = sv(0);
  s.view = true;
  s.phys = false;
  s.nlev = 1;
  s.empty = sizes.product().v == 0;
}

namespace detail {

/// Stacks a level that addresses the current logical shape as a virtual row-major buffer.
/// @post the new top is flat and aligned, every dim clean with at most one mode.
/// The lower level's logical shape is the top level's current one (ops update the physical side
/// after deciding to stack, so the PyTorch-side sizes may already be the op's result).
/// @pre s.nlev < L: the capacity counts the levels a chain can stack (fold/fold.hpp's
/// levels_needed). Stated for g++ -O3, which otherwise sees a state of capacity 1 (a chain that
/// stays a view, whose physical side never runs) stack past lv[0] and warns -Warray-bounds.
template <int L>
constexpr void push_level(fold_state<L>& s) {
  LAZYVIEW_ASSUME(s.nlev >= 1 && s.nlev < L);
  const level& below = s.top();
  shape_vec sizes{};
  for (int i = 0; i < below.rank(); ++i) sizes.push_back(below.logical_size(i));
  level& l = s.lv[s.nlev++];
  set_flat(l, sizes, contiguous_strides(sizes), sv(0));
}

/// The top level with its permutation folded away, stacking a level if that is impossible.
template <int L>
constexpr level& ordered_top(fold_state<L>& s) {
  if (!normalize(s.top())) push_level(s);
  return s.top();
}

/// The internal dim of logical dim i, made clean with at most `max_m` modes (stacking a level if
/// needed).
template <int L>
constexpr int clean_dim(fold_state<L>& s, int i, int max_m) {
  level& l = s.top();
  const int k = l.internal(i);
  if (l.clean(k) && l.modes_of(k) <= max_m) return k;
  push_level(s);
  return i;
}

constexpr void erase_internal(level& l, int i) {
  const int k = l.internal(i);
  const int m0 = l.bound[k], m1 = l.bound[k + 1];
  for (int m = m1 - 1; m >= m0; --m) {
    l.msize.erase(m);
    l.mstride.erase(m);
  }
  l.isz.erase(k);
  if (!l.ident) {
    for (int q = i; q + 1 <= l.isz.n; ++q) l.perm[q] = l.perm[q + 1];
    for (int q = 0; q < l.isz.n; ++q)
      if (l.perm[q] > k) --l.perm[q];
  }
  for (int b = k; b <= l.isz.n; ++b) l.bound[b] = l.bound[b + 1];
  for (int b = k; b <= l.isz.n; ++b)
    if (l.bound[b] >= 0) l.bound[b] = static_cast<signed char>(l.bound[b] - (m1 - m0));
}

/// Gives clean internal dim k (at most one mode) size n and, if it keeps a mode, stride st; a
/// dim shrunk to size 1 loses its mode. Example: (4,6):(6,1), k=1 -> n=2, st=2: (4,2):(6,2).
constexpr void resize_flat_dim(level& l, int k, ival n, ival st) {
  l.isz[k] = n;
  if (l.modes_of(k) != 1) return;  // a unit dim has no mode and stays without one
  const int m = l.bound[k];
  if (n.v == 1) {
    l.msize.erase(m);
    l.mstride.erase(m);
    for (int b = k + 1; b <= l.isz.n; ++b)
      if (l.bound[b] >= 0) --l.bound[b];
  } else {
    l.msize[m] = n;
    l.mstride[m] = st;
  }
}

/// Appends an internal dim at the inner end that becomes the last logical dim.
constexpr void append_internal(level& l, ival size, ival stride) {
  const int r = l.isz.n;
  if (!l.ident) l.perm[r] = static_cast<signed char>(r);
  l.isz.push_back(size);
  if (size.v != 1) {
    l.msize.push_back(size);
    l.mstride.push_back(stride);
  }
  l.bound[r + 1] = static_cast<signed char>(l.msize.n);
}

/// Inserts a size-1 dim at logical position i (no modes).
constexpr void insert_unit(level& l, int i) {
  const int r = l.isz.n;
  LAZYVIEW_ASSUME(r >= 0 && r < max_rank);  // node ranks are checked statically
  int k = l.ident ? i : 0;  // a unit dim moves no data: anywhere aligned will do
  if (!l.ident) {
    for (int q = r; q > i; --q) l.perm[q] = l.perm[q - 1];
    for (int q = 0; q <= r; ++q)
      if (q != i && l.perm[q] >= k) ++l.perm[q];
    l.perm[i] = static_cast<signed char>(k);
  }
  l.isz.insert(k, sv(1));
  for (int b = r + 1; b > k; --b) l.bound[b] = l.bound[b - 1];
  if (!l.ident) l.bound[0] = 0;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Reshape family

/// view (allow_copy = false) and reshape (true): -1 inference, the view rule, and on a copy the
/// physical regrouping. @post sizes == req (inferred); view cleared when PyTorch would copy.
/// Example: (4,3):(1,4) reshape (2,6) -> copy; physical [(2,6) -> (3,4):(1,3)].
template <int L>
constexpr void fold_reshape(fold_state<L>& s, shape_vec req, bool allow_copy) {
  if (infer_size(req, s.numel(), s.error)) return;
  view_rule_result r = compute_stride(s.sizes, s.strides, req);
  if (!r.ok) {
    if (!allow_copy) {
      s.error.code = err::view_incompatible;
      to_list(s.sizes, s.error.a, s.error.na);
      to_list(req, s.error.b, s.error.nb);
      return;
    }
    if (!s.empty) materialize(s);  // from here on the physical side differs from PyTorch's
    s.view = false;
    r.strides = contiguous_strides(req);
  }
  const shape_vec old = s.sizes;
  s.sizes = req;
  s.strides = r.strides;
  if (s.empty || !physical_side(s)) return;
  level* l = &detail::ordered_top(s);
  l->isz = req;
  if (!align(*l)) {  // more modes than one level holds: address the old shape virtually
    l->isz = old;
    detail::push_level(s);
    l = &s.top();
    l->isz = req;
    align(*l);
  }
}

/// squeeze(d) of a size-1 dim. @pre size(i) == 1. Example: (2,1,3):(3,3,1) -> (2,3):(3,1).
template <int L>
constexpr void fold_squeeze(fold_state<L>& s, int i) {
  s.sizes.erase(i);
  s.strides.erase(i);
  if (s.empty || !physical_side(s)) return;
  detail::erase_internal(s.top(), i);
}

/// unsqueeze(d): a size-1 dim whose stride is size*stride of the dim it precedes (1 at the end).
/// Example: (2,3):(3,1) unsqueeze 1 -> (2,1,3):(3,3,1).
template <int L>
constexpr void fold_unsqueeze(fold_state<L>& s, int i) {
  ival st = i < s.sizes.n ? s.sizes[i] * s.strides[i] : sv(1);
  s.sizes.insert(i, sv(1));
  s.strides.insert(i, st);
  if (s.empty || !physical_side(s)) return;
  detail::insert_unit(s.top(), i);
}

// ---------------------------------------------------------------------------------------------
// Permutations

namespace detail {

/// movedim(a, b) of rank r as a permutation into p[0, r): dim a moves to position b, the others
/// keep their order. @pre a, b wrapped. Example: (2, 0) of rank 3 -> (2, 0, 1).
constexpr void movedim_perm(int a, int b, int r, int* p) {
  p[b] = a;
  for (int i = 0, next = 0; i < r; ++i) {
    if (i == b) continue;
    if (next == a) ++next;
    p[i] = next++;
  }
}

}  // namespace detail

/// permute with wrapped, duplicate-free dims: output dim i is input dim p[i].
/// Example: (2,3,4):(12,4,1) permute (2,0,1) -> (4,2,3):(1,12,4).
template <int L>
constexpr void fold_permute(fold_state<L>& s, const int* p) {
  const int r = s.sizes.n;
  ival ns[max_rank], nt[max_rank];
  for (int i = 0; i < r; ++i) {
    LAZYVIEW_ASSUME(p[i] >= 0 && p[i] < r);  // wrapped dims (g++ -Warray-bounds saw -1)
    ns[i] = s.sizes[p[i]];
    nt[i] = s.strides[p[i]];
  }
  for (int i = 0; i < r; ++i) {
    s.sizes[i] = ns[i];
    s.strides[i] = nt[i];
  }
  if (s.empty || !physical_side(s)) return;
  level& l = s.top();
  signed char np[max_rank]{};
  bool id = true;
  for (int i = 0; i < r; ++i) {
    np[i] = static_cast<signed char>(l.internal(p[i]));
    id = id && np[i] == i;
  }
  for (int i = 0; i < r; ++i) l.perm[i] = np[i];
  l.ident = id;
  normalize(l);  // keeps the permutation when a segment would be torn apart
}

// ---------------------------------------------------------------------------------------------
// Dim-local ops

namespace detail {

/// slice(start, end) of a dim of size n as PyTorch clamps it: negative values count from the
/// end, both then clamp into [0, n], and end to no less than start.
/// Example: (-2, INT64_MAX) of 6 -> [4, 6); (5, 2) of 6 -> [5, 5).
struct slice_range {
  index_t start, end;
};
constexpr slice_range clamp_slice(index_t start, index_t end, index_t n) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = start < 0 ? 0 : (start >= n ? n : start);
  end = end < start ? start : (end >= n ? n : end);
  return {start, end};
}

/// The length of diagonal(off) of dims of sizes n1 (rows) and n2 (columns), 0 where it misses.
/// Example: (3, 4), off 1 -> 3; (3, 4), off -3 -> 0.
constexpr index_t diagonal_length(index_t off, index_t n1, index_t n2) {
  const index_t len = off >= 0 ? (n1 < n2 - off ? n1 : n2 - off) : (n1 + off < n2 ? n1 + off : n2);
  return len < 0 ? 0 : len;
}

}  // namespace detail

/// slice with a wrapped dim and step > 0; start/end clamp as in PyTorch.
/// Example: (4,6):(6,1) slice(1, 1, 5, 2) -> (4,2):(6,2), offset 1.
template <int L>
constexpr void fold_slice(fold_state<L>& s, int i, ival start_, ival end_, ival step) {
  const bool known = start_.s && end_.s && step.s && s.sizes[i].s;
  const index_t n = s.sizes[i].v;
  const auto [start, end] = detail::clamp_slice(start_.v, end_.v, n);
  const ival len = {(end - start + step.v - 1) / step.v, known};
  if (start == 0 && end == n && step.v == 1) return;  // whole dim: sizes and strides unchanged
  s.offset = s.offset + ival{start, known} * s.strides[i];
  s.sizes[i] = len;
  s.strides[i] = s.strides[i] * step;
  if (len.v == 0) s.empty = true;
  if (s.empty || !physical_side(s)) return;
  if (len.v == 0) {
    s.empty = true;
    return;
  }
  const int k = detail::clean_dim(s, i, 1);
  level& l = s.top();
  const bool has_mode = l.modes_of(k) == 1;
  const ival st = has_mode ? l.mstride[l.bound[k]] : sv(0);
  l.offset = l.offset + ival{start, known} * st;
  detail::resize_flat_dim(l, k, len, st * step);
}

/// select(d, i) with a wrapped dim and index: drops the dim, offset += i * stride.
/// Example: (2,3,4):(12,4,1) select(1, 2) -> (2,4):(12,1), offset 8.
template <int L>
constexpr void fold_select(fold_state<L>& s, int i, ival idx) {
  s.offset = s.offset + idx * s.strides[i];
  s.sizes.erase(i);
  s.strides.erase(i);
  if (s.empty || !physical_side(s)) return;
  const int k = detail::clean_dim(s, i, max_modes);
  level& l = s.top();
  ival off = sv(0), rest = idx;
  for (int m = l.bound[k + 1] - 1; m >= l.bound[k]; --m) {
    off = off + (rest % l.msize[m]) * l.mstride[m];
    rest = rest / l.msize[m];
  }
  l.offset = l.offset + off;
  detail::erase_internal(l, i);
}

/// expand to `target` (validated, -1 resolved); new leading dims get stride 0 (size > 1) or
/// size*stride of the next dim. Example: (3,1):(1,1) expand (2,3,4) -> (2,3,4):(0,1,0).
template <int L>
constexpr void fold_expand(fold_state<L>& s, const shape_vec& target) {
  const int lead = target.n - s.sizes.n;
  shape_vec ns = target, nt{};
  nt.n = target.n;
  const shape_vec old = s.sizes;
  for (int i = target.n - 1; i >= 0; --i) {
    const int d = i - lead;
    ival size = d >= 0 ? old[d] : sv(1);
    ival stride = d >= 0 ? s.strides[d] : (i + 1 < target.n ? ns[i + 1] * nt[i + 1] : sv(1));
    if (size.v != target[i].v) stride = sv(0);
    nt[i] = stride;
  }
  s.sizes = ns;
  s.strides = nt;
  if (s.numel().v == 0) s.empty = true;
  if (s.empty || !physical_side(s)) return;
  for (int i = 0; i < lead; ++i) detail::insert_unit(s.top(), 0);
  for (int i = 0; i < target.n; ++i) {
    level& l = s.top();
    if (l.logical_size(i).v == target[i].v) continue;
    // a size-1 dim grows: it needs an aligned boundary to hold a stride-0 mode
    int k = l.internal(i);
    if (l.bound[k] < 0 || l.msize.n >= max_modes) {
      detail::push_level(s);
      k = i;
    }
    level& t = s.top();
    const int m = t.bound[k];
    t.msize.insert(m, target[i]);
    t.mstride.insert(m, sv(0));
    t.isz[k] = target[i];
    for (int b = k + 1; b <= t.isz.n; ++b)
      if (t.bound[b] >= 0) ++t.bound[b];
  }
}

/// diagonal with wrapped, distinct dims. Example: (3,4):(4,1) diagonal(1, 0, 1) -> (3):(5), offset 1.
template <int L>
constexpr void fold_diagonal(fold_state<L>& s, ival off_, int d1, int d2) {
  const index_t off = off_.v;
  const ival n1 = s.sizes[d1], n2 = s.sizes[d2];
  const index_t len = detail::diagonal_length(off, n1.v, n2.v);
  const ival st = s.strides[d1] + s.strides[d2];
  const ival s1pt = s.strides[d1], s2pt = s.strides[d2];
  const int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
  s.sizes.erase(hi);
  s.sizes.erase(lo);
  s.strides.erase(hi);
  s.strides.erase(lo);
  const ival vlen = {len, off_.s && n1.s && n2.s};
  s.sizes.push_back(vlen);
  s.strides.push_back(st);
  if (len > 0) s.offset = s.offset + (off >= 0 ? off_ * s2pt : ival{-off, off_.s} * s1pt);
  if (len == 0) s.empty = true;
  if (s.empty || !physical_side(s)) return;
  if (!(s.top().clean(s.top().internal(d1)) && s.top().clean(s.top().internal(d2)) &&
        s.top().modes_of(s.top().internal(d1)) <= 1 && s.top().modes_of(s.top().internal(d2)) <= 1))
    detail::push_level(s);
  level& l = s.top();
  auto mode_stride = [&](int i) {
    const int k = l.internal(i);
    return l.modes_of(k) == 1 ? l.mstride[l.bound[k]] : sv(0);
  };
  const ival s1 = mode_stride(d1), s2 = mode_stride(d2);
  l.offset = l.offset + (off >= 0 ? off_ * s2 : ival{-off, off_.s} * s1);
  detail::erase_internal(l, hi);
  detail::erase_internal(l, lo);
  detail::append_internal(l, vlen, s1 + s2);
}

/// unfold(d, size, step) validated: dim d becomes (n-size)/step+1 windows, a last dim of `size`.
/// Example: (6):(1) unfold(0, 3, 2) -> (2,3):(2,1) (overlapping windows).
template <int L>
constexpr void fold_unfold(fold_state<L>& s, int i, ival size, ival step) {
  const bool scalar = s.sizes.n == 0;
  const ival n = scalar ? sv(1) : s.sizes[i];
  const ival st = scalar ? sv(1) : s.strides[i];
  const ival windows = (n - size) / step + sv(1);
  if (!scalar) {
    s.sizes[i] = windows;
    s.strides[i] = st * step;
  }
  s.sizes.push_back(size);
  s.strides.push_back(st);
  if (s.numel().v == 0) s.empty = true;
  if (s.empty || !physical_side(s)) return;
  if (scalar) {
    detail::append_internal(s.top(), size, sv(1));
    return;
  }
  const int k = detail::clean_dim(s, i, 1);
  level& l = s.top();
  const bool has_mode = l.modes_of(k) == 1;
  const ival pst = has_mode ? l.mstride[l.bound[k]] : sv(0);
  detail::resize_flat_dim(l, k, windows, pst * step);
  detail::append_internal(l, size, pst);
}

}  // namespace lazyview
