#pragma once
// Compile-time diagnostics. When every value of a chain is static, the fold runs at compile time
// and a failing step lands here: one function template per mistake, whose template arguments
// carry the op and the shapes (compilers print them in the instantiation note), and whose
// static_assert says what to do. docs/errors.md lists each one with its compile_fail test.
#include <array>
#include <tuple>
#include <utility>

#include "../fold/fold.hpp"

namespace lazyview::diag {

template <index_t... V>
struct sizes {};

/// What a rejected op returns after its diagnostic: nothing usable, so no second error follows.
struct rejected_chain {};

template <class...>
inline constexpr bool always_false = false;

// Op tags, so the instantiation note names the op that failed.
struct op_view {};
struct op_reshape {};
struct op_permute {};
struct op_transpose {};
struct op_flatten {};
struct op_unflatten {};
struct op_squeeze {};
struct op_unsqueeze {};
struct op_expand {};
struct op_narrow {};
struct op_select {};
struct op_slice {};
struct op_movedim {};
struct op_diagonal {};
struct op_unfold {};

template <class Op, class In, class Requested>
constexpr void numel_mismatch() {
  static_assert(always_false<Op, In, Requested>,
                "lazyview: the requested sizes do not multiply to the input's number of elements; fix the sizes "
                "or write -1 for one of them");
}
template <class Op, class In, class Requested>
constexpr void infer_indivisible() {
  static_assert(always_false<Op, In, Requested>,
                "lazyview: cannot infer -1: the input's number of elements is not divisible by the product of the "
                "other sizes; fix the sizes");
}
template <class Op, class In, class Requested>
constexpr void view_incompatible() {
  static_assert(always_false<Op, In, Requested>,
                "lazyview: view() size is not compatible with the input's sizes and strides (a new dim spans two "
                "contiguous subspaces); use reshape() instead");
}
template <class Op, class In, class Requested>
constexpr void infer_ambiguous() {
  static_assert(always_false<Op, In, Requested>,
                "lazyview: cannot infer -1 when another size is 0; give every size explicitly");
}
template <class Op, class In, class Requested>
constexpr void two_inferred() {
  static_assert(always_false<Op, In, Requested>,
                "lazyview: only one dimension can be inferred; write -1 at most once");
}
template <class Op, class In, class Requested>
constexpr void invalid_size() {
  static_assert(always_false<Op, In, Requested>,
                "lazyview: invalid shape dimension (negative and not -1); sizes must be >= 0, or -1 once");
}
template <class Op, class In, class Dims>
constexpr void permute_duplicate() {
  static_assert(always_false<Op, In, Dims>,
                "lazyview: permute(): duplicate dims are not allowed; each dim must appear exactly once");
}
template <class Op, class In, class Dim>
constexpr void dim_out_of_range() {
  static_assert(always_false<Op, In, Dim>, "lazyview: dimension out of range; dims must lie in [-rank, rank-1]");
}
template <class Op, class In, class Target>
constexpr void expand_mismatch() {
  static_assert(always_false<Op, In, Target>,
                "lazyview: expand(): the expanded size must match the existing size at a non-singleton dimension; "
                "only size-1 dims can grow");
}
template <class Op, class In, class Dim>
constexpr void squeeze_not_one() {
  static_assert(always_false<Op, In, Dim>,
                "lazyview: squeeze(d): dimension d does not have size 1; lazyview has static rank, so squeeze "
                "cannot be a no-op");
}
template <class Op, class In, class Index>
constexpr void index_out_of_range() {
  static_assert(always_false<Op, In, Index>,
                "lazyview: select()/narrow()/slice(): index out of range for the dimension's size");
}
template <class Op, class In, class Args>
constexpr void invalid_argument() {
  static_assert(always_false<Op, In, Args>,
                "lazyview: invalid argument for this op (see the PyTorch rule in docs/errors.md); fix the "
                "argument");
}

namespace detail {

template <const auto& A, std::size_t... I>
constexpr auto sizes_of(std::index_sequence<I...>) -> sizes<A[I]...>;

template <std::size_t N>
constexpr std::array<index_t, N> first_n(const index_t* v) {
  std::array<index_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = v[i];
  return a;
}
template <std::size_t N>
constexpr std::array<index_t, N> first_n(const shape_vec& v) {
  std::array<index_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = v[static_cast<int>(i)].v;
  return a;
}

// Arrays as variables, so that their elements can become template arguments (class-type
// template arguments crash g++ 12 here).
template <class N>
inline constexpr auto input_sizes = first_n<static_cast<std::size_t>(N::child_type::rank)>(
    static_fold_v<typename N::child_type>.sizes);
template <class N>
inline constexpr auto error_a =
    first_n<static_cast<std::size_t>(static_fold_v<N>.error.na)>(static_fold_v<N>.error.a);
template <class N>
inline constexpr auto error_b =
    first_n<static_cast<std::size_t>(static_fold_v<N>.error.nb)>(static_fold_v<N>.error.b);

}  // namespace detail

/// The rank of a dynamic input (its sizes are not known at compile time).
template <int R>
struct dynamic_rank {};

namespace detail {
template <class E>
inline constexpr auto expr_sizes = first_n<static_cast<std::size_t>(E::rank)>(static_fold_v<E>.sizes);
}  // namespace detail

/// An array variable's values as a type: sizes<2, 3, 4>.
template <const auto& A>
using sizes_t = decltype(detail::sizes_of<A>(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(A)>>>{}));

/// The input of an op as a type: sizes<2, 3, 4> when static, dynamic_rank<3> otherwise.
template <class E>
constexpr auto input_of() {
  if constexpr (E::is_static)
    return sizes_t<detail::expr_sizes<E>>{};
  else
    return dynamic_rank<E::rank>{};
}
template <class E>
using input_t = decltype(input_of<E>());

template <class Op, class In, class Dims>
constexpr rejected_chain permute_count() {
  static_assert(always_false<Op, In, Dims>,
                "lazyview: permute() needs exactly one dim per input dimension; the number of dims differs from "
                "the rank");
  return {};
}

/// Raises the diagnostic for node type N when its static fold failed at N's own op.
/// @pre N::is_static.
template <class N>
constexpr void check() {
  constexpr const auto& st = static_fold_v<N>;
  if constexpr (st.error.code != err::none) {
    constexpr error_info e = st.error;
    using Op = typename N::op_type::diag_tag;
    using In = sizes_t<detail::input_sizes<N>>;
    using A = sizes_t<detail::error_a<N>>;
    using X = sizes<e.x, e.y, e.z>;
    constexpr bool has_infer = [&] {
      for (int i = 0; i < e.na; ++i)
        if (e.a[i] == -1) return true;
      return false;
    }();
    if constexpr (e.code == err::numel_mismatch && has_infer) {
      infer_indivisible<Op, In, A>();
    } else if constexpr (e.code == err::numel_mismatch) {
      numel_mismatch<Op, In, A>();
    } else if constexpr (e.code == err::view_incompatible) {
      view_incompatible<Op, In, sizes_t<detail::error_b<N>>>();
    } else if constexpr (e.code == err::infer_ambiguous) {
      infer_ambiguous<Op, In, A>();
    } else if constexpr (e.code == err::two_inferred) {
      two_inferred<Op, In, A>();
    } else if constexpr (e.code == err::invalid_size) {
      invalid_size<Op, In, X>();
    } else if constexpr (e.code == err::permute_duplicate) {
      permute_duplicate<Op, In, A>();
    } else if constexpr (e.code == err::dim_out_of_range) {
      dim_out_of_range<Op, In, X>();
    } else if constexpr (e.code == err::expand_mismatch) {
      expand_mismatch<Op, In, A>();
    } else if constexpr (e.code == err::squeeze_not_one) {
      squeeze_not_one<Op, In, X>();
    } else if constexpr (e.code == err::select_range || e.code == err::narrow_range) {
      index_out_of_range<Op, In, X>();
    } else {
      invalid_argument<Op, In, X>();
    }
  }
}

template <class... A>
constexpr rejected_chain temporary_base() {
  static_assert(always_false<A...>,
                "lazyview: a lazy chain over a temporary lazyview::tensor would dangle; bind the tensor to a "
                "variable first");
  return {};
}

/// True when a compile-time permutation is in range and duplicate-free for Rank.
template <int Rank, index_t... D>
constexpr bool permutation_ok() {
  constexpr index_t dims[] = {D..., 0};
  for (int i = 0; i < static_cast<int>(sizeof...(D)); ++i)
    if (dims[i] < -Rank || dims[i] >= Rank) return false;
  for (int i = 0; i < static_cast<int>(sizeof...(D)); ++i)
    for (int j = 0; j < i; ++j)
      if ((dims[i] + Rank) % Rank == (dims[j] + Rank) % Rank) return false;
  return true;
}

/// permutation_ok when every dim is static; true (checked at run time) otherwise.
template <int Rank, class... P>
constexpr bool static_permutation_ok() {
  if constexpr ((static_int<P> && ...))
    return permutation_ok<Rank, std::remove_cvref_t<P>::value...>();
  else
    return true;
}

/// The dims-only checks (range, duplicates) of a permutation known at compile time, on any base.
template <class In, int Rank, index_t... D>
constexpr rejected_chain check_permutation() {
  constexpr index_t dims[] = {D..., 0};
  constexpr int bad = [&] {
    for (int i = 0; i < static_cast<int>(sizeof...(D)); ++i)
      if (dims[i] < -Rank || dims[i] >= Rank) return i;
    return -1;
  }();
  if constexpr (bad >= 0)
    dim_out_of_range<op_permute, In, sizes<dims[bad]>>();
  else
    permute_duplicate<op_permute, In, sizes<D...>>();
  return {};
}

}  // namespace lazyview::diag
