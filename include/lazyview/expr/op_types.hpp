#pragma once
// Op nodes' parameters: a hana::basic_tuple of the arguments as the caller gave them (c<N> stays
// static and takes no storage, integers become index_t), and a tag naming the PyTorch rule.
#include <boost/hana/basic_tuple.hpp>
#include <boost/hana/unpack.hpp>
#include <string>
#include <utility>

#include "../diag/static_check.hpp"

namespace lazyview {

namespace hana = boost::hana;

/// c<N> and friends normalise to integral_constant<index_t, N>; integers to index_t.
template <class A>
struct norm_arg {
  using type = index_t;
};
template <class A>
  requires static_int<A>
struct norm_arg<A> {
  using type = hana::integral_constant<index_t, static_cast<index_t>(std::remove_cvref_t<A>::value)>;
};
template <class A>
using norm_t = typename norm_arg<std::remove_cvref_t<A>>::type;

template <class Tup>
inline constexpr bool all_static_v = false;
template <class... A>
inline constexpr bool all_static_v<hana::basic_tuple<A...>> = (static_int<A> && ...);

template <class Tup>
inline constexpr int tuple_size_v = 0;
template <class... A>
inline constexpr int tuple_size_v<hana::basic_tuple<A...>> = sizeof...(A);

/// The arguments as fold values.
template <class Tup>
constexpr shape_vec args_of(const Tup& t) {
  return hana::unpack(t, [](const auto&... x) {
    shape_vec v;  // zeroed only where a constant expression needs every value initialised
    if (std::is_constant_evaluated()) v = shape_vec{};
    (v.push_back(to_ival(x)), ...);
    return v;
  });
}

/// The i-th static argument's value (for ops whose rank depends on it).
template <class Tup, int I>
inline constexpr index_t static_arg_v = 0;
template <int I, class... A>
inline constexpr index_t static_arg_v<hana::basic_tuple<A...>, I> =
    std::remove_cvref_t<decltype(hana::at_c<I>(hana::basic_tuple<A...>{}))>::value;

/// A node's parameters: Tag is the rule, Tup the arguments.
template <class Tag, class Tup>
struct op {
  using tag = Tag;
  using diag_tag = typename Tag::diag_tag;
  static constexpr bool is_static = all_static_v<Tup>;
  /// The op may turn the chain into a copy (reshape, flatten): from it on, the fold keeps the
  /// physical side, and each op may stack a level (fold/fold.hpp's levels_of).
  static constexpr bool may_copy = requires { requires Tag::may_copy; };
  template <int R>
  static constexpr int out_rank = Tag::template out_rank<R, Tup>;

  // All-static arguments live in the type only (a tuple of equal empty constants would still
  // take a byte each).
  struct no_args {};
  [[no_unique_address]] std::conditional_t<is_static, no_args, Tup> args{};

  constexpr op() = default;
  /// The op with arguments x... (written where the op lives: see node's constructor).
  template <class... X>
  constexpr explicit op(std::in_place_t, X... x) {
    if constexpr (!is_static) args = Tup{x...};
  }
  constexpr Tup arguments() const {
    if constexpr (is_static)
      return Tup{};
    else
      return args;
  }

  template <int L>
  constexpr void apply(fold_state<L>& s) const {
    Tag::apply(s, args_of(arguments()));
  }
  /// PyTorch's side of the op applied to `in`, into `out`, where the tag has a shown-only rule
  /// (fold/shown_ops.hpp, fold/shown_dim_ops.hpp: every op has one); false where it has none or
  /// the op raises (the caller folds instead, to throw PyTorch's message).
  template <int Ri, int Ro>
  constexpr bool apply_shown(const shown<Ri>& in, shown<Ro>& out) const {
    if constexpr (requires(ival* a) { Tag::apply_shown(in, a, out); })
      return hana::unpack(arguments(), [&](const auto&... x) {
        ival a[] = {to_ival(x)..., sv(0)};  // sv(0): room for ops without arguments (t)
        return Tag::apply_shown(in, a, out);
      });
    else
      return false;
  }
  template <int L>
    requires is_static
  static constexpr void apply_static(fold_state<L>& s) {
    Tag::apply(s, args_of(Tup{}));
  }
  /// "view(2, _3)": the call as written, `_` marking static arguments.
  std::string str() const {
    std::string out = std::string(Tag::name) + "(";
    int i = 0;
    hana::unpack(arguments(), [&](const auto&... x) {
      ((out += (i++ ? ", " : "") + std::string(static_int<decltype(x)> ? "_" : "") +
               std::to_string(to_ival(x).v)),
       ...);
    });
    return out + ")";
  }
};

namespace tags {

struct view {
  using diag_tag = diag::op_view;
  static constexpr const char* name = "view";
  template <int R, class Tup>
  static constexpr int out_rank = tuple_size_v<Tup>;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_view(s, a); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return reshape_shown(in, a, false, out);
  }
};
struct reshape {
  using diag_tag = diag::op_reshape;
  static constexpr const char* name = "reshape";
  static constexpr bool may_copy = true;
  template <int R, class Tup>
  static constexpr int out_rank = tuple_size_v<Tup>;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_reshape(s, a); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return reshape_shown(in, a, true, out);
  }
};
struct permute {
  using diag_tag = diag::op_permute;
  static constexpr const char* name = "permute";
  template <int R, class Tup>
  static constexpr int out_rank = R;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_permute(s, a); }
  template <int R>
  static constexpr bool apply_shown(const shown<R>& in, ival* a, shown<R>& out) { return permute_shown(in, a, out); }
};
struct transpose {
  using diag_tag = diag::op_transpose;
  static constexpr const char* name = "transpose";
  template <int R, class Tup>
  static constexpr int out_rank = R;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_transpose(s, a[0], a[1]); }
  template <int R>
  static constexpr bool apply_shown(const shown<R>& in, ival* a, shown<R>& out) {
    return transpose_shown(in, a[0], a[1], out);
  }
};
struct t {
  using diag_tag = diag::op_transpose;
  static constexpr const char* name = "t";
  template <int R, class Tup>
  static constexpr int out_rank = R;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec&) {
    if (s.rank() == 2) op_transpose(s, sv(0), sv(1));
  }
  template <int R>
  static constexpr bool apply_shown(const shown<R>& in, ival*, shown<R>& out) {
    if constexpr (R == 2) return transpose_shown(in, sv(0), sv(1), out);
    out = in;
    return true;
  }
};
struct flatten {
  using diag_tag = diag::op_flatten;
  static constexpr const char* name = "flatten";
  static constexpr bool may_copy = true;
  template <int R, class Tup>
  static constexpr int out_rank = [] {
    if (R == 0) return 1;
    index_t a = static_arg_v<Tup, 0>, b = static_arg_v<Tup, 1>;
    a = a < 0 ? a + R : a;
    b = b < 0 ? b + R : b;
    return (a >= 0 && b < R && a <= b) ? static_cast<int>(R - (b - a)) : R;
  }();
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_flatten(s, a[0], a[1]); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return flatten_shown(in, a[0], a[1], out);
  }
};
struct unflatten {
  using diag_tag = diag::op_unflatten;
  static constexpr const char* name = "unflatten";
  template <int R, class Tup>
  static constexpr int out_rank = R - 1 + (tuple_size_v<Tup> - 1);
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) {
    shape_vec parts{};
    for (int i = 1; i < a.n; ++i) parts.push_back(a[i]);
    op_unflatten(s, a[0], parts);
  }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return unflatten_shown(in, a, out);
  }
};
struct squeeze {
  using diag_tag = diag::op_squeeze;
  static constexpr const char* name = "squeeze";
  template <int R, class Tup>
  static constexpr int out_rank = R - 1;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_squeeze(s, a[0]); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return squeeze_shown(in, a[0], out);
  }
};
struct unsqueeze {
  using diag_tag = diag::op_unsqueeze;
  static constexpr const char* name = "unsqueeze";
  template <int R, class Tup>
  static constexpr int out_rank = R + 1;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_unsqueeze(s, a[0]); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return unsqueeze_shown(in, a[0], out);
  }
};
struct expand {
  using diag_tag = diag::op_expand;
  static constexpr const char* name = "expand";
  template <int R, class Tup>
  static constexpr int out_rank = tuple_size_v<Tup>;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_expand(s, a); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return expand_shown(in, a, out);
  }
};
struct narrow {
  using diag_tag = diag::op_narrow;
  static constexpr const char* name = "narrow";
  template <int R, class Tup>
  static constexpr int out_rank = R;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_narrow(s, a[0], a[1], a[2]); }
  template <int R>
  static constexpr bool apply_shown(const shown<R>& in, ival* a, shown<R>& out) {
    return narrow_shown(in, a[0], a[1], a[2], out);
  }
};
struct select {
  using diag_tag = diag::op_select;
  static constexpr const char* name = "select";
  template <int R, class Tup>
  static constexpr int out_rank = R - 1;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_select(s, a[0], a[1]); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return select_shown(in, a[0], a[1], out);
  }
};
struct slice {
  using diag_tag = diag::op_slice;
  static constexpr const char* name = "slice";
  template <int R, class Tup>
  static constexpr int out_rank = R;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_slice(s, a[0], a[1], a[2], a[3]); }
  template <int R>
  static constexpr bool apply_shown(const shown<R>& in, ival* a, shown<R>& out) {
    return slice_shown(in, a[0], a[1], a[2], a[3], out);
  }
};
struct movedim {
  using diag_tag = diag::op_movedim;
  static constexpr const char* name = "movedim";
  template <int R, class Tup>
  static constexpr int out_rank = R;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_movedim(s, a[0], a[1]); }
  template <int R>
  static constexpr bool apply_shown(const shown<R>& in, ival* a, shown<R>& out) {
    return movedim_shown(in, a[0], a[1], out);
  }
};
struct diagonal {
  using diag_tag = diag::op_diagonal;
  static constexpr const char* name = "diagonal";
  template <int R, class Tup>
  static constexpr int out_rank = R - 1;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_diagonal(s, a[0], a[1], a[2]); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return diagonal_shown(in, a[0], a[1], a[2], out);
  }
};
struct unfold {
  using diag_tag = diag::op_unfold;
  static constexpr const char* name = "unfold";
  template <int R, class Tup>
  static constexpr int out_rank = R + 1;
  template <int L>
  static constexpr void apply(fold_state<L>& s, const shape_vec& a) { op_unfold(s, a[0], a[1], a[2]); }
  template <int Ri, int Ro>
  static constexpr bool apply_shown(const shown<Ri>& in, ival* a, shown<Ro>& out) {
    return unfold_shown(in, a[0], a[1], a[2], out);
  }
};

}  // namespace tags

}  // namespace lazyview
