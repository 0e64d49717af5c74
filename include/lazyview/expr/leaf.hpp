#pragma once
// Leaves: a pointer into memory with sizes and strides, either all static (from_blob<S...>,
// which stores only the pointer) or dynamic (from_blob(p, {sizes}[, {strides}])).
#include <array>
#include <cstddef>

#include "../fold/fold.hpp"

namespace lazyview {

template <class Derived>
struct expr_ops;

/// Static, row-major extents: from_blob<2, 3, 4>(p) is (_2,_3,_4):(_12,_4,_1).
template <index_t... S>
struct static_extents {
  static constexpr int rank = sizeof...(S);
};

/// Runtime extents with explicit element strides.
template <int R>
struct dynamic_extents {
  static constexpr int rank = R;
  std::array<index_t, R> sizes{};
  std::array<index_t, R> strides{};
};

/// A non-owning view of memory: the start of every chain.
/// @tparam T element type (may be const); @tparam X static_extents<...> or dynamic_extents<R>.
template <class T, class X>
struct tensor_ref : expr_ops<tensor_ref<T, X>> {
  using value_type = T;
  using extents_type = X;
  static constexpr int rank = X::rank;
  static constexpr int depth = 0;
  static constexpr bool is_static = !std::is_same_v<X, dynamic_extents<X::rank>>;
  static_assert(rank <= max_rank, "lazyview: rank above lazyview::max_rank (8)");

  T* ptr = nullptr;
  [[no_unique_address]] X ext{};

  constexpr tensor_ref() = default;
  constexpr tensor_ref(T* p, X x) : ptr(p), ext(x) {}

  constexpr T* base() const { return ptr; }

  template <int L>
  constexpr void fold_leaf_into(fold_state<L>& s) const {
    if constexpr (is_static)
      fold_static_leaf_into(s);
    else
      load_shown(s, shown_leaf());
  }
  /// What a dynamic leaf shows: its sizes and strides, dynamic, at a static offset 0.
  constexpr shown<rank> shown_leaf() const
    requires(!is_static)
  {
    shown<rank> m;
    bool empty = false;
    for (int i = 0; i < rank; ++i) {
      m.sizes[i] = ext.sizes[i];
      m.strides[i] = ext.strides[i];
      empty |= ext.sizes[i] == 0;
    }
    m.offset = 0;
    m.statics = std::uint32_t{1} << (2 * rank);
    m.view = true;
    m.empty = empty;
    return m;
  }
  template <int L>
    requires is_static
  static constexpr void fold_static_leaf_into(fold_state<L>& s) {
    const shape_vec sz = to_shape(X{});
    fold_leaf(s, sz, contiguous_strides(sz));
  }

 private:
  template <index_t... S>
  static constexpr shape_vec to_shape(static_extents<S...>) {
    shape_vec v{};
    (v.push_back(sv(S)), ...);
    return v;
  }
};

/// Contiguous row-major strides of runtime sizes.
template <std::size_t R>
constexpr std::array<index_t, R> row_major_strides(const std::array<index_t, R>& sizes) {
  std::array<index_t, R> st{};
  index_t acc = 1;
  for (int i = static_cast<int>(R) - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return st;
}

/// A contiguous row-major chain start. Example: from_blob(p, {2, 3}) is (2,3):(3,1).
template <class T, std::size_t R>
constexpr auto from_blob(T* p, const index_t (&sizes)[R]) {
  dynamic_extents<static_cast<int>(R)> x;
  for (std::size_t i = 0; i < R; ++i) x.sizes[i] = sizes[i];
  x.strides = row_major_strides(x.sizes);
  return tensor_ref<T, dynamic_extents<static_cast<int>(R)>>(p, x);
}

/// A strided chain start (element strides; 0 and overlaps allowed).
/// Example: from_blob(p, {3, 2}, {1, 3}) is the transpose of a (2,3) buffer.
template <class T, std::size_t R>
constexpr auto from_blob(T* p, const index_t (&sizes)[R], const index_t (&strides)[R]) {
  dynamic_extents<static_cast<int>(R)> x;
  for (std::size_t i = 0; i < R; ++i) {
    x.sizes[i] = sizes[i];
    x.strides[i] = strides[i];
  }
  return tensor_ref<T, dynamic_extents<static_cast<int>(R)>>(p, x);
}

/// Runtime sizes and strides as std::arrays (for code that builds them).
template <class T, std::size_t R>
constexpr auto from_blob(T* p, const std::array<index_t, R>& sizes, const std::array<index_t, R>& strides) {
  return tensor_ref<T, dynamic_extents<static_cast<int>(R)>>(p, dynamic_extents<static_cast<int>(R)>{sizes, strides});
}
template <class T, std::size_t R>
constexpr auto from_blob(T* p, const std::array<index_t, R>& sizes) {
  return from_blob(p, sizes, row_major_strides(sizes));
}

/// A static-extent chain start: from_blob<2, 3, 4>(p) is (_2,_3,_4):(_12,_4,_1).
template <index_t... S, class T>
  requires(sizeof...(S) > 0)
constexpr auto from_blob(T* p) {
  static_assert(((S >= 0) && ...), "lazyview: from_blob<S...>: static sizes must be >= 0");
  return tensor_ref<T, static_extents<S...>>(p, static_extents<S...>{});
}

}  // namespace lazyview
