#pragma once
// Expression nodes and the member API every expression shares. A node holds its child by value,
// its op's arguments and, when dynamic, what PyTorch would show of its result (fold/shown.hpp).
// Every op checks its arguments eagerly: a static chain at compile time (diag/), a dynamic one
// by applying its rule to its child's shown state and throwing PyTorch's error.
#include <array>
#include <concepts>
#include <type_traits>
#include <utility>

#include "leaf.hpp"
#include "op_types.hpp"

namespace lazyview {

template <class T, int R>
class tensor;
struct threads;

/// Evaluates e into a new owning row-major tensor, on th's threads (eval/copy.hpp).
template <class E>
tensor<std::remove_const_t<typename E::value_type>, E::rank> evaluate_contiguous(const E& e);
template <class E>
tensor<std::remove_const_t<typename E::value_type>, E::rank> evaluate_contiguous(const E& e, threads th);

/// An owning tensor (chains over it must start from an lvalue).
template <class E>
concept owning_expr = requires { requires E::owning; };

/// T, made to depend on a member template's own parameters, so that a constraint on the class
/// is checked when the member is called (with the class complete), not cached before.
template <class T, class...>
struct dependent {
  using type = T;
};
template <class T, class... A>
using dependent_t = typename dependent<T, A...>::type;

/// A lazy expression: a leaf or a node.
template <class E>
concept lazy_expr = foldable<E> && requires(const E& e) {
  typename E::value_type;
  { e.base() };
};

/// One op applied to a child expression.
template <class Child, class Op>
struct node : expr_ops<node<Child, Op>> {
  using child_type = Child;
  using op_type = Op;
  using value_type = typename Child::value_type;
  static constexpr int rank = Op::template out_rank<Child::rank>;
  static constexpr int depth = Child::depth + 1;
  static constexpr bool is_static = Child::is_static && Op::is_static;
  static_assert(rank >= 0 && rank <= max_rank, "lazyview: result rank above lazyview::max_rank (8)");

  /// PyTorch's sizes, strides, offset and view flag of the result, computed when the op was
  /// called (a static node has them in static_shown_v and keeps nothing).
  struct no_meta {};
  // No initialiser: the constructor writes every value (zeroing first took a `rep stos` per node).
  // Declared first, then the op, then the child, and so written in that order: see the
  // constructor.
  [[no_unique_address]] std::conditional_t<is_static, no_meta, shown<rank>> meta;
  [[no_unique_address]] Op op{};
  Child child{};

  constexpr node() : meta{} {}
  /// The node of op Op with arguments x... applied to c.
  /// @throws index_error / shape_error as PyTorch raises them (dynamic nodes).
  // The op is built here from its arguments and the result's meta is computed before c is copied
  // in: a wide load of values just written one by one (an argument tuple built to be copied, the
  // meta the child's own constructor has just written) cannot be forwarded from those stores and
  // waits for them to reach the cache. Copying the child first and building the op elsewhere cost
  // three such waits per node: building a dynamic (1,3,6,6) FLUX pack chain took 76 ns, this
  // order (with fold/shown_ops.hpp writing its results in place) 41 ns (g++ 12 -O3 -march=native,
  // 2-core Zen 4 VM).
  template <class... X>
  constexpr node(const Child& c, std::in_place_t, X... x) : op(std::in_place, x...), child(with_meta(c)) {}

 private:
  constexpr const Child& with_meta(const Child& c) {
    if constexpr (!is_static) detail::shown_after<rank>(c, op, meta);
    return c;
  }

 public:
  constexpr value_type* base() const { return child.base(); }
};

namespace detail {

template <class A>
constexpr norm_t<A> norm(A a) {
  if constexpr (static_int<A>)
    return {};
  else
    return static_cast<index_t>(a);
}

/// Checks a static node type's op at compile time (a dynamic node checks itself when built).
template <class N>
constexpr void check_static() {
  if constexpr (N::is_static) diag::check<N>();
}

}  // namespace detail

// An op on a temporary owning tensor would leave the chain pointing into freed memory.
#define LAZYVIEW_NO_TEMPORARY(name)                     \
  template <class... A>                                 \
  diag::rejected_chain name(A&&...)&& requires owning_expr<dependent_t<D, A...>> { \
    return diag::temporary_base<A...>();                \
  }

/// The member API of every expression (CRTP). Sizes, dims and indices are integers or c<N>.
template <class D>
struct expr_ops {
 private:
  template <class E>
  static constexpr decltype(auto) chain_start(const E& e) {
    if constexpr (requires { e.ref(); })
      return e.ref();
    else
      return (e);
  }
  constexpr decltype(auto) start() const { return chain_start(static_cast<const D&>(*this)); }

  template <class Tag, class... A>
  constexpr auto make(A... a) const {
    using Tup = hana::basic_tuple<norm_t<A>...>;
    using Child = std::remove_cvref_t<decltype(start())>;
    using N = node<Child, op<Tag, Tup>>;
    detail::check_static<N>();
    // built in place: a node holds its whole chain by value, and a copy of it on return was a
    // tenth of the instructions of a dynamic (1,3,6,6) FLUX pack with a memoised plan
    return N(start(), std::in_place, detail::norm(a)...);
  }
  template <class Tag, std::size_t... I, class Dim>
  constexpr auto make_list(Dim d, const index_t* v, std::index_sequence<I...>) const {
    return make<Tag>(d, v[I]...);
  }
 public:
  /// view(sizes...): same memory, new sizes (PyTorch's view rule). Example: (4,6):(6,1).view(2,12) -> (2,12):(12,1).
  template <int_like... S>
  constexpr auto view(S... s) const& { return make<tags::view>(s...); }
  template <index_t... S>
  constexpr auto view() const& { return make<tags::view>(c<S>...); }
  /// reshape(sizes...): a view where possible, else lazily PyTorch's row-major copy.
  /// Example: (2,3):(1,2).reshape(6) -> not a view; reads (2,3):(1,2) in row-major order.
  template <int_like... S>
  constexpr auto reshape(S... s) const& { return make<tags::reshape>(s...); }
  template <index_t... S>
  constexpr auto reshape() const& { return make<tags::reshape>(c<S>...); }
  /// permute(dims...): output dim i is input dim dims[i]. Example: (2,3):(3,1).permute(1,0) -> (3,2):(1,3).
  template <int_like... P>
  constexpr auto permute(P... p) const& {
    using In = diag::input_t<std::remove_cvref_t<decltype(start())>>;
    if constexpr (sizeof...(P) != D::rank) {
      if constexpr ((static_int<P> && ...))
        return diag::permute_count<diag::op_permute, In, diag::sizes<std::remove_cvref_t<P>::value...>>();
      else
        return diag::permute_count<diag::op_permute, In, diag::dynamic_rank<sizeof...(P)>>();
    } else if constexpr (!diag::static_permutation_ok<D::rank, P...>()) {
      return diag::check_permutation<In, D::rank, std::remove_cvref_t<P>::value...>();
    } else {
      return make<tags::permute>(p...);
    }
  }
  template <index_t... P>
  constexpr auto permute() const& { return permute(c<P>...); }
  /// transpose(a, b): swaps two dims.
  template <int_like A, int_like B>
  constexpr auto transpose(A a, B b) const& { return make<tags::transpose>(a, b); }
  /// t(): transpose of a matrix; 0-d and 1-d are returned as they are.
  constexpr auto t() const& {
    if constexpr (D::rank > 2) {
      static_assert(D::rank <= 2, "lazyview: t() expects a tensor with <= 2 dimensions; use transpose(a, b) or permute()");
      return diag::rejected_chain{};
    } else
      return make<tags::t>();
  }
  /// flatten(start, end) with compile-time dims (the result rank depends on them).
  template <static_int S, static_int E>
  constexpr auto flatten(S s, E e) const& { return make<tags::flatten>(s, e); }
  template <index_t S = 0, index_t E = -1>
  constexpr auto flatten() const& { return make<tags::flatten>(c<S>, c<E>); }
  /// unflatten(d, {sizes...}): splits dim d (one -1 allowed). Example: (2,12).unflatten(1, {3, -1}) -> (2,3,4).
  template <int_like Dim, std::size_t N>
  constexpr auto unflatten(Dim d, const index_t (&sizes)[N]) const& {
    return make_list<tags::unflatten>(d, sizes, std::make_index_sequence<N>{});
  }
  /// squeeze(d): removes a size-1 dim (a non-1 size is an error: static rank, see pytorch_differences).
  template <int_like Dim>
  constexpr auto squeeze(Dim d) const& {
    static_assert(D::rank >= 1, "lazyview: squeeze(d) needs a tensor with at least one dimension");
    return make<tags::squeeze>(d);
  }
  /// unsqueeze(d): inserts a size-1 dim at d in [-rank-1, rank].
  template <int_like Dim>
  constexpr auto unsqueeze(Dim d) const& { return make<tags::unsqueeze>(d); }
  /// expand(sizes...): size-1 dims grow with stride 0; -1 keeps a size.
  template <int_like... S>
  constexpr auto expand(S... s) const& {
    if constexpr (sizeof...(S) < D::rank) {
      static_assert(sizeof...(S) >= D::rank,
                    "lazyview: expand(): the number of sizes provided must be greater or equal to the number of "
                    "dimensions in the tensor");
      return diag::rejected_chain{};
    } else
      return make<tags::expand>(s...);
  }
  /// narrow(d, start, length). Example: (4,6):(6,1).narrow(1, 2, 3) -> (4,3):(6,1), offset 2.
  template <int_like Dim, int_like S, int_like Len>
  constexpr auto narrow(Dim d, S start, Len length) const& {
    static_assert(D::rank >= 1, "lazyview: narrow() cannot be applied to a 0-dim tensor");
    return make<tags::narrow>(d, start, length);
  }
  /// select(d, i): drops dim d at index i. Example: (2,3,4):(12,4,1).select(1, 2) -> (2,4):(12,1), offset 8.
  template <int_like Dim, int_like I>
  constexpr auto select(Dim d, I i) const& {
    static_assert(D::rank >= 1, "lazyview: select() cannot be applied to a 0-dim tensor");
    return make<tags::select>(d, i);
  }
  /// slice(d, start, end, step) with PyTorch's clamping; step > 0.
  template <int_like Dim, int_like S = index_t, int_like E = index_t, int_like St = index_t>
  constexpr auto slice(Dim d, S start = 0, E end = INT64_MAX, St step = 1) const& {
    static_assert(D::rank >= 1, "lazyview: slice() cannot be applied to a 0-dim tensor");
    return make<tags::slice>(d, start, end, step);
  }
  /// movedim(src, dst): dim src moves to dst, the others keep their order.
  template <int_like S, int_like Dst>
  constexpr auto movedim(S src, Dst dst) const& { return make<tags::movedim>(src, dst); }
  /// diagonal(offset, d1, d2). Example: (3,4):(4,1).diagonal(1) -> (3):(5), offset 1.
  template <int_like O = index_t, int_like D1 = index_t, int_like D2 = index_t>
  constexpr auto diagonal(O offset = 0, D1 d1 = 0, D2 d2 = 1) const& {
    static_assert(D::rank >= 2, "lazyview: diagonal() needs a tensor with at least two dimensions");
    return make<tags::diagonal>(offset, d1, d2);
  }
  /// unfold(d, size, step): sliding windows as a new last dim. Example: (6):(1).unfold(0, 3, 2) -> (2,3):(2,1).
  template <int_like Dim, int_like S, int_like St>
  constexpr auto unfold(Dim d, S size, St step) const& {
    static_assert(D::rank >= 1, "lazyview: unfold() needs a tensor with at least one dimension");
    return make<tags::unfold>(d, size, step);
  }

  LAZYVIEW_NO_TEMPORARY(view)
  LAZYVIEW_NO_TEMPORARY(reshape)
  LAZYVIEW_NO_TEMPORARY(permute)
  LAZYVIEW_NO_TEMPORARY(transpose)
  LAZYVIEW_NO_TEMPORARY(flatten)
  LAZYVIEW_NO_TEMPORARY(unflatten)
  LAZYVIEW_NO_TEMPORARY(squeeze)
  LAZYVIEW_NO_TEMPORARY(unsqueeze)
  LAZYVIEW_NO_TEMPORARY(expand)
  LAZYVIEW_NO_TEMPORARY(narrow)
  LAZYVIEW_NO_TEMPORARY(select)
  LAZYVIEW_NO_TEMPORARY(slice)
  LAZYVIEW_NO_TEMPORARY(movedim)
  LAZYVIEW_NO_TEMPORARY(diagonal)
  LAZYVIEW_NO_TEMPORARY(unfold)
  LAZYVIEW_NO_TEMPORARY(t)
  template <index_t... S>
  diag::rejected_chain view() && requires owning_expr<dependent_t<D, diag::sizes<S...>>> {
    return diag::temporary_base<D>();
  }
  template <index_t... S>
  diag::rejected_chain reshape() && requires owning_expr<dependent_t<D, diag::sizes<S...>>> {
    return diag::temporary_base<D>();
  }
  template <index_t... P>
  diag::rejected_chain permute() && requires owning_expr<dependent_t<D, diag::sizes<P...>>> {
    return diag::temporary_base<D>();
  }
  template <index_t S = 0, index_t E = -1>
  diag::rejected_chain flatten() && requires owning_expr<dependent_t<D, diag::sizes<S, E>>> {
    return diag::temporary_base<D>();
  }

  // ---- queries (PyTorch's view of the result) ----
  /// Sizes, outermost first.
  constexpr auto sizes() const { return shown_of(start()).sizes; }
  /// The strides PyTorch would show: of the view, or of PyTorch's contiguous copy after a copying reshape.
  constexpr auto strides() const { return shown_of(start()).strides; }
  /// size(d), d may be negative.
  constexpr index_t size(index_t d) const {
    error_info e{};
    const index_t w = wrap_dim(d, D::rank, e);
    if (e) throw_error(e);
    return shown_of(start()).sizes[static_cast<std::size_t>(w)];
  }
  constexpr index_t numel() const { return shown_of(start()).numel(); }
  static constexpr int dim() { return D::rank; }
  /// True when PyTorch's result aliases the base (no reshape in the chain copied).
  constexpr bool is_view() const { return shown_of(start()).view; }
  constexpr bool is_contiguous() const {
    fold_state<0> s;
    load_shown(s, shown_of(start()));
    return s.contiguous();
  }

  /// Reference to element (i, j, ...) in the base memory (negative indices count from the end).
  template <int_like... I>
  constexpr auto& operator()(I... i) const {
    static_assert(sizeof...(I) == D::rank, "lazyview: operator() needs one index per dimension");
    const auto& e = start();
    decltype(auto) s = fold(e);
    index_t idx[max_rank + 1] = {static_cast<index_t>(to_ival(i).v)...};
    for (int d = 0; d < D::rank; ++d) {
      const index_t n = s.sizes[d].v;
      if (idx[d] < -n || idx[d] >= n) {
        error_info err_{};
        err_.code = err::index_range;
        err_.x = idx[d];
        err_.y = d;
        err_.z = n;
        throw_error(err_);
      }
      if (idx[d] < 0) idx[d] += n;
    }
    return e.base()[element_offset(s, idx)];
  }

  /// Evaluates into a new owning row-major tensor (64-byte aligned), on the calling thread, or
  /// split over threads{n} as copy() splits it (n = 0: the hardware's threads).
  auto contiguous() const { return evaluate_contiguous(start()); }
  // (a template: threads is eval/threads.hpp's, incomplete here)
  template <std::same_as<threads> Th>
  auto contiguous(Th th) const {
    return evaluate_contiguous(start(), th);
  }
};

#undef LAZYVIEW_NO_TEMPORARY

}  // namespace lazyview
