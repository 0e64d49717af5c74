#pragma once
// The ops as PyTorch defines them: argument checks in PyTorch's order and with its messages,
// then the geometry of fold/state.hpp. Each takes the values as the caller wrote them (dims may
// be negative) and records the first error in s.error instead of throwing, so the same code
// folds at compile time and at run time.
#include <cstdint>

#include "state.hpp"

namespace lazyview {

namespace detail {

template <int L>
constexpr int wrap(fold_state<L>& s, ival d, int rank) {
  return static_cast<int>(wrap_dim(d.v, rank, s.error));
}

}  // namespace detail

/// view(sizes...). Example: (4,6):(6,1) view (2,2,6) -> (2,2,6):(12,6,1).
template <int L>
constexpr void op_view(fold_state<L>& s, const shape_vec& req) { fold_reshape(s, req, false); }

/// reshape(sizes...): view when the view rule allows, else (lazily) PyTorch's row-major copy.
/// Example: (2,3):(1,2) reshape (6) -> not a view; physical (2,3):(1,2) read row-major.
template <int L>
constexpr void op_reshape(fold_state<L>& s, const shape_vec& req) { fold_reshape(s, req, true); }

/// flatten(start, end): merges dims start..end with reshape semantics; start == end is the input.
/// Example: (2,3,4) flatten(1,2) -> (2,12).
template <int L>
constexpr void op_flatten(fold_state<L>& s, ival start, ival end) {
  const int r = s.rank();
  if (r == 0) {
    shape_vec one{};
    one.push_back(sv(1));
    fold_reshape(s, one, true);
    return;
  }
  const int a = detail::wrap(s, start, r);
  if (s.error) return;
  const int b = detail::wrap(s, end, r);
  if (s.error) return;
  if (a > b) {
    s.error.code = err::flatten_order;
    return;
  }
  if (a == b) return;
  shape_vec req{};
  for (int i = 0; i < a; ++i) req.push_back(s.sizes[i]);
  ival p = sv(1);
  for (int i = a; i <= b; ++i) p = p * s.sizes[i];
  req.push_back(p);
  for (int i = b + 1; i < r; ++i) req.push_back(s.sizes[i]);
  fold_reshape(s, req, true);
}

/// unflatten(d, sizes): splits dim d (one -1 allowed). Example: (2,12) unflatten(1, {3,-1}) -> (2,3,4).
template <int L>
constexpr void op_unflatten(fold_state<L>& s, ival dim, shape_vec parts) {
  const int r = s.rank();
  const int d = detail::wrap(s, dim, r);
  if (s.error) return;
  const shape_vec given = parts;
  error_info e{};
  if (infer_size(parts, s.sizes[d], e)) {
    if (e.code == err::two_inferred) {
      e.code = err::unflatten_two_inferred;
    } else if (e.code == err::numel_mismatch) {
      e = error_info{};
      e.code = err::unflatten_sizes;
      to_list(given, e.a, e.na);
      e.x = d;
      e.y = s.sizes[d].v;
    }
    s.error = e;
    return;
  }
  shape_vec req{};
  for (int i = 0; i < d; ++i) req.push_back(s.sizes[i]);
  for (int i = 0; i < parts.n; ++i) req.push_back(parts[i]);
  for (int i = d + 1; i < r; ++i) req.push_back(s.sizes[i]);
  fold_reshape(s, req, false);
}

/// squeeze(d): lazyview's static rank makes a non-1 size an error (PyTorch: no-op).
template <int L>
constexpr void op_squeeze(fold_state<L>& s, ival dim) {
  const int d = detail::wrap(s, dim, s.rank());
  if (s.error) return;
  if (s.sizes[d].v != 1) {
    s.error.code = err::squeeze_not_one;
    s.error.x = d;
    s.error.y = s.sizes[d].v;
    return;
  }
  fold_squeeze(s, d);
}

/// unsqueeze(d), d in [-r-1, r]. Example: (2,3):(3,1) unsqueeze(-1) -> (2,3,1):(3,1,1).
template <int L>
constexpr void op_unsqueeze(fold_state<L>& s, ival dim) {
  const int d = detail::wrap(s, dim, s.rank() + 1);
  if (s.error) return;
  fold_unsqueeze(s, d);
}

/// permute(dims): output dim i is input dim dims[i]. @pre dims.n == rank (checked statically).
template <int L>
constexpr void op_permute(fold_state<L>& s, const shape_vec& dims) {
  const int r = s.rank();
  int p[max_rank]{};
  for (int i = 0; i < r; ++i) {
    p[i] = detail::wrap(s, dims[i], r);
    if (s.error) return;
  }
  // A bit set, not a bool array indexed by p[i]: g++ 12 -O3 could not see that p[i] >= 0 once
  // wrap succeeded, and warned -Warray-bounds (tests/laws/laws_layout.cpp).
  std::uint32_t seen = 0;
  for (int i = 0; i < r; ++i) {
    if (seen >> p[i] & 1u) {
      s.error.code = err::permute_duplicate;
      to_list(dims, s.error.a, s.error.na);
      return;
    }
    seen |= 1u << p[i];
  }
  fold_permute(s, p);
}

/// transpose(a, b): swaps two dims; a == b is the input.
template <int L>
constexpr void op_transpose(fold_state<L>& s, ival a, ival b) {
  const int r = s.rank();
  const int x = detail::wrap(s, a, r);
  if (s.error) return;
  const int y = detail::wrap(s, b, r);
  if (s.error || x == y) return;
  if (s.empty || !physical_side(s)) {  // PyTorch's side only: a swap, without building a permutation
    const ival sz = s.sizes[x], st = s.strides[x];
    s.sizes[x] = s.sizes[y], s.strides[x] = s.strides[y];
    s.sizes[y] = sz, s.strides[y] = st;
    return;
  }
  int p[max_rank]{};
  for (int i = 0; i < r; ++i) p[i] = i;
  p[x] = y;
  p[y] = x;
  fold_permute(s, p);
}

/// movedim(src, dst): dim src moves to position dst, the others keep their order.
/// Example: (2,3,4) movedim(-1, 0) -> (4,2,3).
template <int L>
constexpr void op_movedim(fold_state<L>& s, ival src, ival dst) {
  const int r = s.rank();
  const int a = detail::wrap(s, src, r);
  if (s.error) return;
  const int b = detail::wrap(s, dst, r);
  if (s.error || a == b) return;
  int p[max_rank]{};
  detail::movedim_perm(a, b, r, p);
  fold_permute(s, p);
}

/// expand(sizes): -1 keeps a size; only size-1 dims grow (stride 0). @pre sizes.n >= rank.
template <int L>
constexpr void op_expand(fold_state<L>& s, const shape_vec& sizes) {
  const int n = sizes.n, lead = n - s.rank();
  shape_vec target = sizes;
  for (int i = n - 1; i >= 0; --i) {
    const int d = i - lead;
    const ival size = d >= 0 ? s.sizes[d] : sv(1);
    ival t = sizes[i];
    if (t.v == -1) {
      if (d < 0) {
        s.error.code = err::expand_leading;
        s.error.x = -1;
        s.error.y = i;
        return;
      }
      t = size;
    }
    if (t.v != size.v) {
      if (size.v != 1) {
        s.error.code = err::expand_mismatch;
        s.error.x = t.v;
        s.error.y = size.v;
        s.error.z = i;
        to_list(sizes, s.error.a, s.error.na);
        to_list(s.sizes, s.error.b, s.error.nb);
        return;
      }
    }
    if (t.v < 0) {
      s.error.code = err::expand_negative;
      s.error.x = t.v;
      s.error.y = i;
      return;
    }
    target[i] = t;
  }
  fold_expand(s, target);
}

/// narrow(d, start, length) = slice(d, start, start + length). start may equal the size.
template <int L>
constexpr void op_narrow(fold_state<L>& s, ival dim, ival start, ival length) {
  const int d = detail::wrap(s, dim, s.rank());
  if (s.error) return;
  const index_t n = s.sizes[d].v;
  index_t st = start.v;
  if (st != n) {
    st = wrap_dim(st, static_cast<int>(n), s.error);
    if (s.error) return;
  }
  if (length.v < 0 || st > n - length.v) {
    s.error.code = err::narrow_range;
    s.error.x = st;
    s.error.y = length.v;
    s.error.z = n;
    return;
  }
  const bool known = start.s && length.s && s.sizes[d].s;
  fold_slice(s, d, ival{st, known}, ival{st + length.v, known}, sv(1));
}

/// select(d, i): drops dim d at index i (negative counts from the end).
template <int L>
constexpr void op_select(fold_state<L>& s, ival dim, ival index) {
  const int d = detail::wrap(s, dim, s.rank());
  if (s.error) return;
  const index_t n = s.sizes[d].v;
  if (index.v < -n || index.v >= n) {
    s.error.code = err::select_range;
    s.error.x = index.v;
    s.error.y = d;
    to_list(s.sizes, s.error.a, s.error.na);
    return;
  }
  // a negative index is static only where the size it counts back from is
  fold_select(s, d, index.v < 0 ? index + s.sizes[d] : index);
}

/// slice(d, start, end, step): PyTorch's clamping, step > 0.
template <int L>
constexpr void op_slice(fold_state<L>& s, ival dim, ival start, ival end, ival step) {
  const int d = detail::wrap(s, dim, s.rank());
  if (s.error) return;
  if (step.v <= 0) {
    s.error.code = err::slice_step;
    s.error.x = step.v;
    return;
  }
  fold_slice(s, d, start, end, step);
}

/// diagonal(offset, d1, d2). Example: (2,3,4) diagonal(-1, 0, 2) -> (3,1):(4,13), offset 12.
template <int L>
constexpr void op_diagonal(fold_state<L>& s, ival offset, ival dim1, ival dim2) {
  const int r = s.rank();
  const int a = detail::wrap(s, dim1, r);
  if (s.error) return;
  const int b = detail::wrap(s, dim2, r);
  if (s.error) return;
  if (a == b) {
    s.error.code = err::diagonal_same;
    s.error.x = dim1.v;
    s.error.y = dim2.v;
    return;
  }
  fold_diagonal(s, offset, a, b);
}

/// unfold(d, size, step): windows of `size` every `step` along d, as a new last dim.
template <int L>
constexpr void op_unfold(fold_state<L>& s, ival dim, ival size, ival step) {
  const int d = detail::wrap(s, dim, s.rank());
  if (s.error) return;
  const index_t max_size = s.rank() == 0 ? 1 : s.sizes[d].v;
  if (size.v < 0) {
    s.error.code = err::invalid_size;
    s.error.x = size.v;
    return;
  }
  if (size.v > max_size) {
    s.error.code = err::unfold_size;
    s.error.x = d;
    s.error.y = max_size;
    s.error.z = size.v;
    return;
  }
  if (step.v <= 0) {
    s.error.code = err::unfold_step;
    s.error.x = step.v;
    return;
  }
  fold_unfold(s, d, size, step);
}

}  // namespace lazyview
