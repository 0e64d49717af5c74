#pragma once
// The reshape family (view, reshape, flatten, unflatten) and the permute family (permute,
// transpose, t, movedim) on PyTorch's side alone, from a shown state to a shown state: what a
// dynamic node computes when it is built (expr/node.hpp); fold/shown_dim_ops.hpp has the ops on
// one or two dims. The general path loads the child's shown state into a fold state, applies the
// op's full rule and stores the result back; that round trip, whose states are copied whole
// between scalar writes, was most of the cost of building a small chain. These run the same
// rules (fold/view_rule.hpp) on the values in place: building a dynamic FLUX pack chain went
// from 220 to 92 ns, and the whole copy of a (1,3,6,6) one from 305 to 175 ns (g++ 12 -O3
// -march=native, 2-core Zen 3 VM).
//
// Each returns false, having written nothing the caller reads, where the op raises an error:
// the general path then runs and throws PyTorch's message (the reshape family also declines on
// tensors with no elements, which the general path computes). The results, static flags
// included, equal the general path's (tests/fold/shown_paths_test.cpp compares them).
#include "shown.hpp"

namespace lazyview {

/// view (allow_copy = false) or reshape of `in` to req[0, Ro) as the caller wrote it.
/// Declines (returns false) where the op raises and where `in` has no elements: the general
/// path then throws PyTorch's message or, for empty tensors (whose strides follow their own
/// rules, fold/view_rule.hpp), computes the result.
/// Example: (2,12):(12,1) with req (2,-1,4) -> (2,3,4):(12,4,1), a view.
///
/// The rules are infer_size, compute_stride and contiguous_strides on plain values. Static
/// flags follow from two facts of a product with no zero factor (every size here is >= 1):
/// it is static exactly when all its factors are, and a stride times such a product is static
/// when both are or the stride is a static 0 (ival's operator*). A dynamic (1,3,6,6) FLUX pack,
/// chain built and copied per call, instructions per call (callgrind): g++ 12 -O2, the two
/// reshapes on ivals 1094 of 2645 -> 690 of 2241 this way; -O3 -march=native, 1620 -> 1427.
/// Sizes and strides go straight into `out` as they are found, never through local arrays: g++
/// copied those to `out` with wide loads of values just stored one by one, which wait for the
/// stores to reach the cache (the view alone of a (1,3,6,6) FLUX pack 27 -> 16 ns on Zen 4). So
/// `out` holds partial values when the op declines. The product of the sizes is tested by a
/// division only where a -1 asks for one.
template <int Ri, int Ro>
constexpr bool reshape_shown(const shown<Ri>& in, const ival* req, bool allow_copy, shown<Ro>& out) {
  constexpr std::uint32_t all_sizes = (std::uint32_t{1} << Ri) - 1;
  const index_t numel = product_of(Ri, [&](int i) { return in.sizes[i]; });
  if (numel == 0) return false;
  const bool numel_s = (in.statics & all_sizes) == all_sizes;
  // infer_size: one -1 at most, no other negative size, the product matches
  int infer = -1;
  index_t known = 1;
  std::uint32_t size_bits = 0;  // bit i: out.sizes[i] is static
  for (int i = 0; i < Ro; ++i) {
    const index_t v = req[i].v;
    out.sizes[i] = v;
    size_bits |= static_cast<std::uint32_t>(req[i].s) << i;
    if (v == -1) {
      if (infer >= 0) return false;
      infer = i;
    } else {
      if (v < 0) return false;
      known *= v;
    }
  }
  if (infer < 0) {
    if (numel != known) return false;
  } else {
    if (known == 0 || numel % known != 0) return false;
    const std::uint32_t bit = std::uint32_t{1} << infer;
    const bool known_s = (size_bits | bit) == (std::uint32_t{1} << Ro) - 1;
    out.sizes[infer] = numel / known;
    size_bits = (size_bits & ~bit) | (numel_s && known_s ? bit : 0u);
  }
  // compute_stride: each new dim inside one chunk of mutually contiguous old dims
  std::uint32_t nst_bits = 0;  // bit i: out.strides[i] is static
  bool view = true;
  if constexpr (Ri == 0) {
    for (int i = 0; i < Ro; ++i) out.strides[i] = 1;
    nst_bits = (std::uint32_t{1} << Ro) - 1;
  } else {
    int v = Ro - 1;
    index_t base = in.strides[Ri - 1];
    bool base_s = in.statics >> (2 * Ri - 1) & 1u;
    index_t t_cnt = 1, v_cnt = 1;
    bool v_s = true;
    for (int t = Ri - 1; t >= 0 && view; --t) {
      t_cnt *= in.sizes[t];
      if (t > 0 && (in.sizes[t - 1] == 1 || in.strides[t - 1] == t_cnt * base)) continue;  // chunk goes on
      const bool zero_base = base_s && base == 0;
      while (v >= 0 && (v_cnt < t_cnt || out.sizes[v] == 1)) {
        out.strides[v] = v_cnt * base;
        nst_bits |= static_cast<std::uint32_t>((v_s && base_s) || zero_base) << v;
        v_cnt *= out.sizes[v];
        v_s &= size_bits >> v & 1u;
        --v;
      }
      view = v_cnt == t_cnt;
      if (t > 0) {
        base = in.strides[t - 1];
        base_s = in.statics >> (Ri + t - 1) & 1u;
        t_cnt = v_cnt = 1;
        v_s = true;
      }
    }
    view = view && v == -1;
  }
  if (!view) {
    if (!allow_copy) return false;
    // contiguous_strides: sizes of 1 count as a static 1
    index_t acc = 1;
    bool acc_s = true;
    nst_bits = 0;
    for (int i = Ro - 1; i >= 0; --i) {
      out.strides[i] = acc;
      nst_bits |= static_cast<std::uint32_t>(acc_s) << i;
      if (out.sizes[i] > 1) {
        acc *= out.sizes[i];
        acc_s &= size_bits >> i & 1u;
      }
    }
  }
  out.offset = in.offset;
  out.statics = detail::shown_offset_bit(in) << (2 * Ro) | nst_bits << Ro | size_bits;
  out.view = in.view && view;
  out.empty = false;
  return true;
}

/// flatten(start, end): dims start..end merged, as reshape does it (a copy where they do not
/// merge); a 0-d tensor becomes (1). Example: (2,3,4):(12,4,1), (1, 2) -> (2,12):(12,1).
template <int Ri, int Ro>
constexpr bool flatten_shown(const shown<Ri>& in, ival start, ival end, shown<Ro>& out) {
  ival req[Ro > 0 ? Ro : 1];
  if constexpr (Ri == 0) {
    req[0] = sv(1);
  } else {
    const index_t a = detail::wrapped(start.v, Ri), b = detail::wrapped(end.v, Ri);
    if (a < 0 || b < 0 || a > b || Ri - (b - a) != Ro) return false;
    if constexpr (Ro == Ri) {  // start == end: the input
      out = in;
      return true;
    }
    int n = 0;
    ival merged = sv(1);
    for (int i = 0; i < Ri; ++i) {
      const ival size = detail::shown_size(in, i);
      if (i < a || i > b) {
        req[n++] = size;
      } else {
        merged = merged * size;
        if (i == b) req[n++] = merged;
      }
    }
  }
  return reshape_shown(in, req, true, out);
}

/// unflatten(dim, parts...) with a[0] = dim, a[1, 1 + Ro - Ri] = parts (one -1 allowed): dim
/// splits into parts, always a view. Example: (2,12):(12,1), (1, 3, -1) -> (2,3,4):(12,4,1).
template <int Ri, int Ro>
constexpr bool unflatten_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
  constexpr int np = Ro - Ri + 1;
  const index_t d = detail::wrapped(a[0].v, Ri);
  if (d < 0 || Ri == 0) return false;
  ival* parts = a + 1;
  error_info e;  // (unread: declining, the full rule throws the message)
  if (infer_size(parts, np, detail::shown_size(in, static_cast<int>(d)), e)) return false;
  ival req[Ro > 0 ? Ro : 1];
  int m = 0;
  for (int i = 0; i < Ri; ++i) {
    if (i != d) {
      req[m++] = detail::shown_size(in, i);
    } else {
      for (int k = 0; k < np; ++k) req[m++] = parts[k];
    }
  }
  return reshape_shown(in, req, false, out);
}

/// permute of `in` by dims[0, R) as the caller wrote them (negative dims count from the end).
/// Example: (2,3,4):(12,4,1) by (2,0,1) -> (4,2,3):(1,12,4).
/// The static flags move with their dims only where `in` has any (moved_bits): in a chain of
/// run-time sizes it has none, and moving them took 8 instructions a dim. A dynamic (1,3,6,6)
/// FLUX pack built and copied per call: 1416 -> 1359 instructions (callgrind, g++ 12 -O3
/// -march=x86-64-v3), 75.0-75.7 -> 72.5-73.0 ns (-march=native, 2-core Intel Xeon VM).
template <int R>
constexpr bool permute_shown(const shown<R>& in, const ival* dims, shown<R>& out) {
  std::uint32_t seen = 0, bits = detail::shown_offset_bit(in) << (2 * R);
  const bool moved_bits = (in.statics & ((std::uint32_t{1} << (2 * R)) - 1)) != 0;
  for (int i = 0; i < R; ++i) {
    const index_t d = detail::wrapped(dims[i].v, R);
    if (d < 0 || (seen >> d & 1u)) return false;
    seen |= 1u << d;
    out.sizes[i] = in.sizes[d];
    out.strides[i] = in.strides[d];
    if (moved_bits) bits |= (in.statics >> d & 1u) << i | (in.statics >> (R + d) & 1u) << (R + i);
  }
  out.offset = in.offset;
  out.statics = bits;
  out.view = in.view;
  out.empty = in.empty;
  return true;
}

/// transpose(a, b) of `in`: permute by the identity with a and b swapped.
/// Example: (2,3,4):(12,4,1), (0, -1) -> (4,3,2):(1,4,12).
template <int R>
constexpr bool transpose_shown(const shown<R>& in, ival a, ival b, shown<R>& out) {
  const index_t x = detail::wrapped(a.v, R), y = detail::wrapped(b.v, R);
  if (x < 0 || y < 0) return false;
  if constexpr (R == 0) {
    out = in;
    return true;
  } else {
    ival dims[R];
    for (int i = 0; i < R; ++i) dims[i] = sv(i);
    dims[x] = sv(y);
    dims[y] = sv(x);
    return permute_shown(in, dims, out);
  }
}

/// movedim(src, dst): dim src moves to position dst, the others keep their order.
/// Example: (2,3,4):(12,4,1), (-1, 0) -> (4,2,3):(1,12,4).
template <int R>
constexpr bool movedim_shown(const shown<R>& in, ival src, ival dst, shown<R>& out) {
  const index_t a = detail::wrapped(src.v, R), b = detail::wrapped(dst.v, R);
  if (a < 0 || b < 0) return false;
  if constexpr (R == 0) {
    out = in;
    return true;
  } else {
    int p[R];
    detail::movedim_perm(static_cast<int>(a), static_cast<int>(b), R, p);
    ival dims[R];
    for (int i = 0; i < R; ++i) dims[i] = sv(p[i]);
    return permute_shown(in, dims, out);
  }
}

}  // namespace lazyview
