#pragma once
// Integers that are either static (lazyview::c<N>) or dynamic (index_t), and the value type the
// fold works on, which remembers whether a value was known at compile time.
#include <boost/hana/integral_constant.hpp>
#include <concepts>
#include <type_traits>

#include "../config.hpp"

namespace lazyview {

/// A compile-time integer: `c<4>` is `boost::hana::integral_constant<index_t, 4>`.
template <index_t N>
inline constexpr boost::hana::integral_constant<index_t, N> c{};

template <class T>
struct is_static_int : std::false_type {};
template <class I, I N>
struct is_static_int<boost::hana::integral_constant<I, N>> : std::bool_constant<std::is_integral_v<I>> {};
template <class I, I N>
struct is_static_int<std::integral_constant<I, N>> : std::bool_constant<std::is_integral_v<I> && !std::is_same_v<I, bool>> {};

/// A static integer constant (c<N>, hana or std integral_constant).
template <class T>
concept static_int = is_static_int<std::remove_cvref_t<T>>::value;

/// Anything lazyview accepts as a size, dim or index.
template <class T>
concept int_like = static_int<T> || (std::integral<std::remove_cvref_t<T>> && !std::same_as<std::remove_cvref_t<T>, bool>);

/// A value in the fold, with `s` true when it is known at compile time. Arithmetic keeps
/// staticness: a result is static when every operand is (and `_0 * n` is a static 0).
/// Comparisons look at values only.
struct ival {
  index_t v;  // no initialisers: arrays of ivals in a fold state cost nothing to create
  bool s;

  // Bitwise, not short-circuit: the flag costs three ands and two ors, never a branch, in the
  // fold's inner loops.
  friend constexpr ival operator*(ival a, ival b) {
    return {a.v * b.v, static_cast<bool>((a.s & b.s) | (a.s & (a.v == 0)) | (b.s & (b.v == 0)))};
  }
  friend constexpr ival operator+(ival a, ival b) { return {a.v + b.v, a.s && b.s}; }
  friend constexpr ival operator-(ival a, ival b) { return {a.v - b.v, a.s && b.s}; }
  friend constexpr ival operator/(ival a, ival b) { return {a.v / b.v, a.s && b.s}; }
  friend constexpr ival operator%(ival a, ival b) { return {a.v % b.v, a.s && b.s}; }
  friend constexpr bool operator==(ival a, ival b) { return a.v == b.v; }
  friend constexpr bool operator==(ival a, index_t b) { return a.v == b; }
  friend constexpr auto operator<=>(ival a, ival b) { return a.v <=> b.v; }
  friend constexpr auto operator<=>(ival a, index_t b) { return a.v <=> b; }
};

/// A static ival.
constexpr ival sv(index_t v) { return {v, true}; }
/// A dynamic ival.
constexpr ival dv(index_t v) { return {v, false}; }

/// |x|: how far a stride steps, whichever way. Example: magnitude(-12) is 12.
constexpr index_t magnitude(index_t x) { return x < 0 ? -x : x; }

/// The ival of a size/dim/index argument: static for c<N>, dynamic for plain integers.
template <int_like I>
constexpr ival to_ival(I i) {
  if constexpr (static_int<I>)
    return sv(static_cast<index_t>(std::remove_cvref_t<I>::value));
  else
    return dv(static_cast<index_t>(i));
}

}  // namespace lazyview
