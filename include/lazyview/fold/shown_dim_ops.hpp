#pragma once
// The ops that act on one or two dims (select, slice, narrow, squeeze, unsqueeze, expand,
// diagonal, unfold), on PyTorch's side alone: what a dynamic node computes when it is built, as
// fold/shown_ops.hpp does for the reshape and permute families. Without these a node loaded its
// child's shown state into a fold state, ran the full rule and stored the result back, the two
// copies of whole states costing more than the op. Building and folding view(B,C,H/2,2,W/2,2)
// .permute(0,2,4,1,3,5).select(0,0).slice(0,0,32,2).unsqueeze(1) of (2,16,128,128) went from
// 140 to 102 ns, and view(B,C,H*W).transpose(1,2).narrow(1,0,1024) from 59 to 51 (fold/dynamic/
// 5op and 3op of bench/fold_cost.cpp, g++ 12 -O3 -march=native, 2-core Zen 4 VM, medians of 5
// alternated runs).
//
// Values and static flags come from the same ival arithmetic as the full rules (fold/ops.hpp and
// fold/state.hpp), so they agree by construction; tests/fold/shown_paths_test.cpp checks it on
// random states. Each returns false, having written nothing the caller reads, where the op raises:
// the full rule then runs and throws PyTorch's message.
#include "shown.hpp"

namespace lazyview {

/// select(dim, index): drops the dim, offset += index * stride.
/// Example: (2,3,4):(12,4,1), (1, -1) -> (2,4):(12,1), offset 8.
template <int Ri, int Ro>
constexpr bool select_shown(const shown<Ri>& in, ival dim, ival index, shown<Ro>& out) {
  static_assert(Ro == Ri - 1);
  const index_t d = detail::wrapped(dim.v, Ri);
  if (d < 0 || Ri == 0) return false;
  const ival n = detail::shown_size(in, static_cast<int>(d));
  if (index.v < -n.v || index.v >= n.v) return false;
  const ival idx = index.v < 0 ? index + n : index;
  detail::shown_writer<Ro> w{out};
  w.dims_of(in, 0, static_cast<int>(d), 0);
  w.dims_of(in, static_cast<int>(d) + 1, Ri, static_cast<int>(d));
  w.finish(detail::shown_offset(in) + idx * detail::shown_stride(in, static_cast<int>(d)), in.view, in.empty);
  return true;
}

/// slice of the wrapped dim d, start and end as written (clamped as PyTorch clamps), step > 0.
/// @pre d in [0, R), step.v > 0.
template <int R>
constexpr void slice_shown_at(const shown<R>& in, int d, ival start_, ival end_, ival step, shown<R>& out) {
  const ival n = detail::shown_size(in, d);
  const bool known = start_.s && end_.s && step.s && n.s;
  const auto [start, end] = detail::clamp_slice(start_.v, end_.v, n.v);
  if (start == 0 && end == n.v && step.v == 1) {  // the whole dim: the state as it was
    out = in;
    return;
  }
  const ival len = {(end - start + step.v - 1) / step.v, known};
  const ival stride = detail::shown_stride(in, d);
  detail::shown_writer<R> w{out};
  w.dims_of(in, 0, d, 0);
  w.dim(d, len, stride * step);
  w.dims_of(in, d + 1, R, d + 1);
  w.finish(detail::shown_offset(in) + ival{start, known} * stride, in.view, in.empty || len.v == 0);
}

/// slice(dim, start, end, step). Example: (4,6):(6,1), (1, 1, 5, 2) -> (4,2):(6,2), offset 1.
template <int R>
constexpr bool slice_shown(const shown<R>& in, ival dim, ival start, ival end, ival step, shown<R>& out) {
  const index_t d = detail::wrapped(dim.v, R);
  if (d < 0 || R == 0 || step.v <= 0) return false;
  slice_shown_at(in, static_cast<int>(d), start, end, step, out);
  return true;
}

/// narrow(dim, start, length) = slice(dim, start, start + length); start may equal the size.
/// Example: (4,6):(6,1), (1, 2, 3) -> (4,3):(6,1), offset 2.
template <int R>
constexpr bool narrow_shown(const shown<R>& in, ival dim, ival start, ival length, shown<R>& out) {
  const index_t d = detail::wrapped(dim.v, R);
  if (d < 0 || R == 0) return false;
  const ival n = detail::shown_size(in, static_cast<int>(d));
  const index_t st = start.v == n.v ? start.v : detail::wrapped(start.v, n.v);
  if (st < 0 || length.v < 0 || st > n.v - length.v) return false;
  const bool known = start.s && length.s && n.s;
  slice_shown_at(in, static_cast<int>(d), ival{st, known}, ival{st + length.v, known}, sv(1), out);
  return true;
}

/// squeeze(dim) of a size-1 dim (lazyview's static rank makes any other size an error).
/// Example: (2,1,3):(3,3,1), (1) -> (2,3):(3,1).
template <int Ri, int Ro>
constexpr bool squeeze_shown(const shown<Ri>& in, ival dim, shown<Ro>& out) {
  static_assert(Ro == Ri - 1);
  const index_t d = detail::wrapped(dim.v, Ri);
  if (d < 0 || Ri == 0 || in.sizes[d] != 1) return false;
  detail::shown_writer<Ro> w{out};
  w.dims_of(in, 0, static_cast<int>(d), 0);
  w.dims_of(in, static_cast<int>(d) + 1, Ri, static_cast<int>(d));
  w.finish(detail::shown_offset(in), in.view, in.empty);
  return true;
}

/// unsqueeze(dim), dim in [-R-1, R]: a size-1 dim whose stride is size * stride of the dim it
/// precedes (1 at the end). Example: (2,3):(3,1), (-1) -> (2,3,1):(3,1,1).
template <int Ri, int Ro>
constexpr bool unsqueeze_shown(const shown<Ri>& in, ival dim, shown<Ro>& out) {
  static_assert(Ro == Ri + 1);
  const index_t d = detail::wrapped(dim.v, Ro);
  if (d < 0) return false;
  const int i = static_cast<int>(d);
  detail::shown_writer<Ro> w{out};
  w.dims_of(in, 0, i, 0);
  w.dim(i, sv(1), i < Ri ? detail::shown_size(in, i) * detail::shown_stride(in, i) : sv(1));
  w.dims_of(in, i, Ri, i + 1);
  w.finish(detail::shown_offset(in), in.view, in.empty);
  return true;
}

/// expand(sizes): -1 keeps a size; a size-1 dim grows with stride 0; new leading dims get
/// stride 0 where they grow, else size * stride of the next dim.
/// Example: (3,1):(1,1), (2,-1,4) -> (2,3,4):(0,1,0).
template <int Ri, int Ro>
constexpr bool expand_shown(const shown<Ri>& in, const ival* target, shown<Ro>& out) {
  static_assert(Ro >= Ri);
  constexpr int lead = Ro - Ri;
  detail::shown_writer<Ro> w{out};
  ival next_size = sv(1), next_stride = sv(1);  // dim i + 1 of the result, or (1):(1) past the end
  bool zero = false;
  for (int i = Ro - 1; i >= 0; --i) {
    const int d = i - lead;
    const ival size = d >= 0 ? detail::shown_size(in, d) : sv(1);
    ival t = target[i];
    if (t.v == -1) {
      if (d < 0) return false;
      t = size;
    }
    if ((t.v != size.v && size.v != 1) || t.v < 0) return false;
    ival stride = d >= 0 ? detail::shown_stride(in, d) : (i + 1 < Ro ? next_size * next_stride : sv(1));
    if (size.v != t.v) stride = sv(0);
    w.dim(i, t, stride);
    zero |= t.v == 0;
    next_size = t;
    next_stride = stride;
  }
  w.finish(detail::shown_offset(in), in.view, in.empty || zero);
  return true;
}

/// diagonal(offset, d1, d2): the two dims go, a last dim of the diagonal's length comes, with
/// stride stride(d1) + stride(d2). Example: (3,4):(4,1), (1, 0, 1) -> (3):(5), offset 1.
template <int Ri, int Ro>
constexpr bool diagonal_shown(const shown<Ri>& in, ival off, ival dim1, ival dim2, shown<Ro>& out) {
  static_assert(Ro == Ri - 1);
  const index_t a = detail::wrapped(dim1.v, Ri), b = detail::wrapped(dim2.v, Ri);
  if (a < 0 || b < 0 || a == b || Ri < 2) return false;
  const int lo = static_cast<int>(a < b ? a : b), hi = static_cast<int>(a < b ? b : a);
  const ival n1 = detail::shown_size(in, static_cast<int>(a)), n2 = detail::shown_size(in, static_cast<int>(b));
  const ival s1 = detail::shown_stride(in, static_cast<int>(a)), s2 = detail::shown_stride(in, static_cast<int>(b));
  const index_t len = detail::diagonal_length(off.v, n1.v, n2.v);
  detail::shown_writer<Ro> w{out};
  w.dims_of(in, 0, lo, 0);
  w.dims_of(in, lo + 1, hi, lo);
  w.dims_of(in, hi + 1, Ri, hi - 1);
  w.dim(Ro - 1, ival{len, off.s && n1.s && n2.s}, s1 + s2);
  ival offset = detail::shown_offset(in);
  if (len > 0) offset = offset + (off.v >= 0 ? off * s2 : ival{-off.v, off.s} * s1);
  w.finish(offset, in.view, in.empty || len == 0);
  return true;
}

/// unfold(dim, size, step): dim becomes (n - size) / step + 1 windows, and a last dim of `size`
/// walks one window. Example: (6):(1), (0, 3, 2) -> (2,3):(2,1).
template <int Ri, int Ro>
constexpr bool unfold_shown(const shown<Ri>& in, ival dim, ival size, ival step, shown<Ro>& out) {
  static_assert(Ro == Ri + 1);
  const index_t d = detail::wrapped(dim.v, Ri);
  if (d < 0 || size.v < 0 || step.v <= 0) return false;
  detail::shown_writer<Ro> w{out};
  ival st = sv(1);  // a 0-d tensor unfolds as a (1):(1) one
  if constexpr (Ri == 0) {
    if (size.v > 1) return false;
  } else {
    const int i = static_cast<int>(d);
    const ival n = detail::shown_size(in, i);
    if (size.v > n.v) return false;
    st = detail::shown_stride(in, i);
    w.dims_of(in, 0, i, 0);
    w.dim(i, (n - size) / step + sv(1), st * step);  // at least one window: size <= n
    w.dims_of(in, i + 1, Ri, i + 1);
  }
  w.dim(Ri, size, st);
  w.finish(detail::shown_offset(in), in.view, in.empty || size.v == 0);
  return true;
}

}  // namespace lazyview
