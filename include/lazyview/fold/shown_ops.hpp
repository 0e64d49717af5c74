#pragma once
// The commonest ops on PyTorch's side alone, from a shown state to a shown state: what a dynamic
// node computes when it is built (expr/node.hpp). The general path loads the child's shown state
// into a fold state, applies the op's full rule and stores the result back; for view, reshape,
// permute and transpose that round trip, whose states are copied whole between scalar writes,
// was most of the cost of building a small chain. These run the same rules (fold/view_rule.hpp)
// on the values in place: building a dynamic FLUX pack chain went from 220 to 92 ns, and the
// whole copy of a (1,3,6,6) one from 305 to 175 ns (g++ 12 -O3 -march=native, 2-core Zen 3 VM).
//
// Each returns false, having written nothing the caller reads, where the op raises an error:
// the general path then runs and throws PyTorch's message. The results, static flags included,
// equal the general path's (tests/fold/shown_paths_test.cpp compares them).
#include "shown.hpp"

namespace lazyview {

/// view (allow_copy = false) or reshape of `in` to req[0, Ro) as the caller wrote it.
/// Example: (2,12):(12,1) with req (2,-1,4) -> (2,3,4):(12,4,1), a view.
template <int Ri, int Ro>
constexpr bool reshape_shown(const shown<Ri>& in, ival* req, bool allow_copy, shown<Ro>& out) {
  ival sz[Ri > 0 ? Ri : 1], st[Ri > 0 ? Ri : 1];
  ival numel = sv(1);
  for (int i = 0; i < Ri; ++i) {
    sz[i] = detail::shown_size(in, i);
    st[i] = detail::shown_stride(in, i);
    numel = numel * sz[i];
  }
  error_info e;  // written only on failure (value-initialised, its lists were zeroed each call)
  if (infer_size(req, Ro, numel, e)) return false;
  ival nst[Ro > 0 ? Ro : 1];
  const bool view = compute_stride(sz, st, Ri, req, Ro, nst).ok;
  if (!view) {
    if (!allow_copy) return false;
    contiguous_strides(req, Ro, nst);
  }
  std::uint32_t bits = detail::shown_offset_bit(in) << (2 * Ro);
  for (int i = 0; i < Ro; ++i) {
    out.sizes[i] = req[i].v;
    out.strides[i] = nst[i].v;
    bits |= static_cast<std::uint32_t>(req[i].s) << i | static_cast<std::uint32_t>(nst[i].s) << (Ro + i);
  }
  out.offset = in.offset;
  out.statics = bits;
  out.view = in.view && view;
  out.empty = in.empty;
  return true;
}

/// permute of `in` by dims[0, R) as the caller wrote them (negative dims count from the end).
/// Example: (2,3,4):(12,4,1) by (2,0,1) -> (4,2,3):(1,12,4).
template <int R>
constexpr bool permute_shown(const shown<R>& in, const ival* dims, shown<R>& out) {
  std::uint32_t seen = 0, bits = detail::shown_offset_bit(in) << (2 * R);
  for (int i = 0; i < R; ++i) {
    const index_t d = dims[i].v < 0 ? dims[i].v + R : dims[i].v;
    if (d < 0 || d >= R || (seen >> d & 1u)) return false;
    seen |= 1u << d;
    out.sizes[i] = in.sizes[d];
    out.strides[i] = in.strides[d];
    bits |= (in.statics >> d & 1u) << i | (in.statics >> (R + d) & 1u) << (R + i);
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
  const index_t m = R > 0 ? R : 1;
  const index_t x = a.v < 0 ? a.v + m : a.v, y = b.v < 0 ? b.v + m : b.v;
  if (x < 0 || x >= m || y < 0 || y >= m) return false;
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

}  // namespace lazyview
