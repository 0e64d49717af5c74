#pragma once
// What PyTorch would show of an expression (sizes, strides, storage offset, whether it aliases the
// base), as a dynamic node keeps it. PyTorch computes a tensor's metadata when the op runs; so
// does lazyview: each dynamic op checks its arguments against its child's shown state anyway, and
// keeping the result makes queries, the fold of a chain that stays a view, and the next op's
// check cost one op each instead of a fold of the whole chain.
//
// The physical side (levels into the base) is not kept: it is only needed to evaluate a chain that
// stopped being a view, and fold() rebuilds it from the leaf.
#include <array>
#include <cstdint>
#include <type_traits>

#include "state.hpp"

namespace lazyview {

/// PyTorch's side of a fold, rank R, compact: values plus one bit per value for staticness.
/// Example: from_blob(p, {24}).view(c<2>, 12) shows (_2,12):(12,1), offset 0.
template <int R>
struct shown {
  // not zeroed: every producer writes [0, R) (zeroing took a `rep stos` per node, about a tenth
  // of building a dynamic view)
  std::array<index_t, R> sizes;
  std::array<index_t, R> strides;
  index_t offset = 0;
  std::uint32_t statics = 0;  ///< bit i: sizes[i]; bit R + i: strides[i]; bit 2R: offset
  bool view = true;
  bool empty = false;

  constexpr index_t numel() const {
    return product_of(R, [&](int i) { return sizes[i]; });
  }
};

namespace detail {

/// Size i, stride i and the offset of a shown state, with their static flags.
template <int R>
constexpr ival shown_size(const shown<R>& m, int i) {
  return {m.sizes[i], static_cast<bool>(m.statics >> i & 1u)};
}
template <int R>
constexpr ival shown_stride(const shown<R>& m, int i) {
  return {m.strides[i], static_cast<bool>(m.statics >> (R + i) & 1u)};
}
template <int R>
constexpr std::uint32_t shown_offset_bit(const shown<R>& m) {
  return m.statics >> (2 * R) & 1u;
}
template <int R>
constexpr ival shown_offset(const shown<R>& m) {
  return {m.offset, static_cast<bool>(shown_offset_bit(m))};
}

/// Writes a shown state value by value, gathering the static flags into one word.
template <int R>
struct shown_writer {
  shown<R>& out;
  std::uint32_t bits = 0;

  constexpr void dim(int i, ival size, ival stride) {
    out.sizes[i] = size.v;
    out.strides[i] = stride.v;
    bits |= static_cast<std::uint32_t>(size.s) << i | static_cast<std::uint32_t>(stride.s) << (R + i);
  }
  /// Dims [from, to) of `in`, written from position at on.
  template <int Ri>
  constexpr void dims_of(const shown<Ri>& in, int from, int to, int at) {
    for (int i = from; i < to; ++i) dim(at + i - from, shown_size(in, i), shown_stride(in, i));
  }
  constexpr void finish(ival offset, bool view, bool empty) {
    out.offset = offset.v;
    out.statics = bits | static_cast<std::uint32_t>(offset.s) << (2 * R);
    out.view = view;
    out.empty = empty;
  }
};

}  // namespace detail

/// The shown side of a state. @pre s.rank() == R and no error.
template <int R, int L>
constexpr shown<R> to_shown(const fold_state<L>& s) {
  shown<R> r;
  std::uint32_t bits = 0;
  for (int i = 0; i < R; ++i) {
    r.sizes[i] = s.sizes[i].v;
    r.strides[i] = s.strides[i].v;
    bits |= static_cast<std::uint32_t>(s.sizes[i].s) << i;
    bits |= static_cast<std::uint32_t>(s.strides[i].s) << (R + i);
  }
  r.offset = s.offset.v;
  r.statics = bits | static_cast<std::uint32_t>(s.offset.s) << (2 * R);
  r.view = s.view;
  r.empty = s.empty;
  return r;
}

/// Starts a fold from a shown state: PyTorch's side only, physical levels not yet maintained
/// (a view's layout is its flat PyTorch layout, see materialize()).
template <int R, int L>
constexpr void load_shown(fold_state<L>& s, const shown<R>& m) {
  if (std::is_constant_evaluated()) s.sizes = s.strides = shape_vec{};
  s.sizes.n = s.strides.n = R;
  for (int i = 0; i < R; ++i) {
    s.sizes[i] = detail::shown_size(m, i);
    s.strides[i] = detail::shown_stride(m, i);
  }
  s.offset = ival{m.offset, static_cast<bool>(detail::shown_offset_bit(m))};
  s.view = m.view;
  s.empty = m.empty;
  s.phys = false;
  s.nlev = 1;
}

}  // namespace lazyview
