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

/// The product of f(0), ..., f(n - 1), multiplied one after another; 0 at the first factor of 0.
/// @pre every factor >= 0. Example: sizes (2,3,4) -> 24; (2,0,5) -> 0.
/// The early return is what keeps the loop scalar (compilers do not vectorise a loop that can
/// leave early). g++ 12 -O3 -march=native on an AVX-512 Intel core vectorised the plain loop
/// `for (...) n *= size[i]` into vpmullq steps (15 cycles each there, imul 3) whose 16- to
/// 64-byte loads of sizes just stored one by one cannot be forwarded from those stores: the
/// numel in reshape_shown was 15 of the 53 ns of building a dynamic (1,3,6,6) FLUX pack chain.
template <class F>
constexpr index_t product_of(int n, F f) {
  index_t p = 1;
  for (int i = 0; i < n; ++i) {
    const index_t v = f(i);
    if (v == 0) return 0;
    p *= v;
  }
  return p;
}

/// The ival of a size/dim/index argument: static for c<N>, dynamic for plain integers.
template <int_like I>
constexpr ival to_ival(I i) {
  if constexpr (static_int<I>)
    return sv(static_cast<index_t>(std::remove_cvref_t<I>::value));
  else
    return dv(static_cast<index_t>(i));
}

}  // namespace lazyview
