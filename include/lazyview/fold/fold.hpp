#pragma once
// Folding a chain: run each node's rule over one state, innermost first. A chain whose every
// value is static folds once, at compile time, into a constexpr variable; a dynamic chain folds
// into a stack object in a handful of stores per op, never allocating.
#include <type_traits>

#include "ops.hpp"
#include "shown_dim_ops.hpp"
#include "shown_ops.hpp"

namespace lazyview {

/// What fold() needs from an expression type (leaves and nodes alike).
template <class E>
concept foldable = requires {
  { E::rank } -> std::convertible_to<int>;
  { E::depth } -> std::convertible_to<int>;
  { E::is_static } -> std::convertible_to<bool>;
};

namespace detail {

/// One level for the base, plus one per op from the first that may copy on: only a copying
/// reshape starts the physical side (materialize), and only an op that runs on it stacks a level,
/// at most one each (a level stacked by push_level is flat, so the realignment after it never
/// needs another). A chain that stays a view needs one, whatever its length: folding a dynamic
/// 5-op view chain no longer sets up 6 levels it never uses (76 -> 46 instructions, callgrind).
/// Example: view.permute.select.slice.unsqueeze -> 1; view.permute.reshape -> 2; reshape.permute -> 3.
template <class E>
constexpr int levels_needed() {
  if constexpr (E::depth == 0) {
    return 1;
  } else {
    constexpr int below = levels_needed<typename E::child_type>();
    return below > 1 || E::op_type::may_copy ? below + 1 : 1;
  }
}

}  // namespace detail

/// Level capacity of the fold of E (detail::levels_needed). A static prefix's capacity never
/// exceeds its chain's, so widen() can continue it.
template <class E>
inline constexpr int levels_of = detail::levels_needed<E>();

template <class E>
using fold_state_of = fold_state<levels_of<E>>;

namespace detail {

/// The fold of a static chain from its type alone (no object is read).
template <class E, int L>
constexpr void fold_static(fold_state<L>& s) {
  if constexpr (E::depth == 0) {
    E::fold_static_leaf_into(s);
  } else {
    fold_static<typename E::child_type>(s);
    if (!s.error) E::op_type::apply_static(s);
  }
}

}  // namespace detail

/// The fold of a static chain, computed once per type at compile time.
template <class E>
inline constexpr fold_state_of<E> static_fold_v = [] {
  fold_state_of<E> s{};  // a constexpr variable must be fully initialised
  detail::fold_static<E>(s);
  return s;
}();

/// What PyTorch shows of a static chain, computed once per type at compile time.
template <class E>
inline constexpr shown<E::rank> static_shown_v = to_shown<E::rank>(static_fold_v<E>);

/// What PyTorch would show of e, without its physical side: a static chain's constexpr fold, a
/// dynamic leaf's extents, or what a dynamic node kept when it was built (expr/node.hpp).
template <foldable E>
constexpr decltype(auto) shown_of(const E& e) {
  if constexpr (E::is_static) {
    return (static_shown_v<E>);
  } else if constexpr (E::depth == 0) {
    return e.shown_leaf();
  } else {
    return (e.meta);
  }
}

namespace detail {

/// Every node's rule, innermost first; but a static prefix is copied from its constexpr fold
/// instead of re-folded, and a dynamic node that is a view starts from what it kept: a view's
/// layout is its flat PyTorch layout, so nothing below it needs folding again.
template <class E, int L>
constexpr void fold_into(fold_state<L>& s, const E& e) {
  if constexpr (E::is_static) {
    s = widen<L>(static_fold_v<E>);
  } else if constexpr (E::depth == 0) {
    e.fold_leaf_into(s);
  } else {
    if (e.meta.view) {
      load_shown(s, e.meta);
      return;
    }
    fold_into(s, e.child);
    if (!s.error) e.op.apply(s);
  }
}

/// PyTorch's side after applying `o` to `c`, written into r, as a dynamic node keeps it: one
/// op's work. An out-parameter, not a return value: a node's meta may share its tail padding
/// with another member, so C++ does not construct it in place from a prvalue (g++ 12 built it in
/// a temporary and copied it with wide loads of just-written narrow stores, which cannot be
/// forwarded: where it called this out of line, 20 of the 89 ns of building a dynamic FLUX pack
/// chain, view.permute.reshape of (1,3,6,6), on Zen 4).
/// Example: c = (2,12):(12,1), o = view(2,3,4) -> r = (2,3,4):(12,4,1), a view.
/// @throws index_error / shape_error with PyTorch's message, as PyTorch raises at the call.
template <int R, class Child, class Op>
constexpr void shown_after(const Child& c, const Op& o, shown<R>& r) {
  decltype(auto) in = shown_of(c);
  if (!o.apply_shown(in, r)) {
    fold_state<0> s;
    load_shown(s, in);
    o.apply(s);
    if (s.error) throw_error(s.error);
    r = to_shown<R>(s);
  }
}

template <class E>
constexpr fold_state_of<E> fold_runtime(const E& e) {
  fold_state_of<E> s;
  fold_into(s, e);
  return s;
}

}  // namespace detail

/// Folds `e` into one state: PyTorch-visible sizes/strides/is_view plus the physical layout.
/// Zero work for a static chain (a reference to its constexpr fold).
/// Example: from_blob<1,16,8,6>(p).view<1,16,4,2,3,2>().permute<0,2,4,1,3,5>().reshape<1,12,64>()
///          folds to (_12,_64):... physically ((_4,_3),(_16,_2,_2)):((_12,_2),(_48,_6,_1)), not a view.
template <foldable E>
constexpr decltype(auto) fold(const E& e) {
  if constexpr (E::is_static)  // a reference to the constexpr fold (the cast: g++ 12 would copy)
    return static_cast<const fold_state_of<E>&>(static_fold_v<E>);
  else
    return detail::fold_runtime(e);
}

/// Physical offset (in elements from the base pointer) of logical index idx.
/// @pre the state is not empty and idx is in range.
template <int L>
constexpr index_t element_offset(const fold_state<L>& s, const index_t* idx) {
  if (!s.phys) {
    index_t off = s.offset.v;
    for (int d = 0; d < s.rank(); ++d) off += idx[d] * s.strides[d].v;
    return off;
  }
  const level& top = s.top();
  index_t off = top.offset.v + level_offset(top, idx);
  for (int k = s.nlev - 2; k >= 0; --k) off = level_offset_flat(s.lv[k], off);
  return off;
}

}  // namespace lazyview
