#pragma once
// A per-thread memo of the last plan copy() made for each pair of chain types. Folding the source
// with its physical levels and planning cost about 1800 of the 5100 instructions of a dynamic
// (1,3,6,6) FLUX pack (callgrind); a loop that copies the same shapes every step, as an inference
// step does, pays them once.
//
// The key is everything a chain's fold reads at run time: the dynamic leaf's sizes and strides and
// every dynamic op argument, innermost first (a node's kept metadata and the static parts follow
// from them). Two chains of one type with equal keys fold to the same layout, so a hit needs no
// check: the sizes matched and the destination was a view when the entry was stored, and the
// pointers, which the key leaves out, enter only the overlap test, which a hit still makes.
//
// A hit runs what the miss kept: a small copy's loop nest in bytes with its kernel chosen, or the
// engine's plan and offset tables (engine_setup), so it neither plans nor converts anything.
//
// An entry is about 6.7 KB of thread-local storage (a plain plan, the nest's setup, the engine's
// plan, 256 offsets) per pair of chain types that copy() meets, on each thread that copies them.
#include <type_traits>

#include "../expr/node.hpp"
#include "engine_plan.hpp"
#include "plan.hpp"

namespace lazyview {

/// 0 turns the memo off (every dynamic copy folds and plans afresh).
#ifndef LAZYVIEW_PLAN_MEMO
#define LAZYVIEW_PLAN_MEMO 1
#endif
inline constexpr bool plan_memo_enabled = LAZYVIEW_PLAN_MEMO != 0;

namespace detail {

template <class Tup>
inline constexpr int dynamic_args_v = 0;
template <class... A>
inline constexpr int dynamic_args_v<hana::basic_tuple<A...>> = (0 + ... + (std::is_same_v<A, index_t> ? 1 : 0));

/// How many run-time values the fold of E reads. Example: from_blob(p, {B,C,H,W}).view(6 sizes)
/// .permute(6 dims).reshape(3 sizes) -> 8 + 6 + 6 + 3 = 23; any static chain -> 0.
template <class E>
constexpr int key_len() {
  if constexpr (E::is_static)
    return 0;
  else if constexpr (E::depth == 0)
    return 2 * E::rank;
  else if constexpr (E::op_type::is_static)
    return key_len<typename E::child_type>();
  else
    return key_len<typename E::child_type>() + dynamic_args_v<std::remove_cvref_t<decltype(E::op_type::args)>>;
}

/// Calls f with each value of E's key, innermost first. Always inlined: clang 14 kept it out of
/// line, and key_differs' lambda then updated its diff and key pointer in memory, a store and a
/// load per value on one chain of dependences (43-47 ns for a 23-value key).
template <class E, class F>
LAZYVIEW_ALWAYS_INLINE constexpr void for_each_key(const E& e, F&& f) {
  if constexpr (E::is_static) {
    return;
  } else if constexpr (E::depth == 0) {
    for (int i = 0; i < E::rank; ++i) f(e.ext.sizes[i]);
    for (int i = 0; i < E::rank; ++i) f(e.ext.strides[i]);
  } else {
    for_each_key(e.child, f);
    if constexpr (!E::op_type::is_static)
      hana::unpack(e.op.args, [&](const auto&... a) {
        ((std::is_same_v<std::remove_cvref_t<decltype(a)>, index_t> ? void(f(to_ival(a).v)) : void()), ...);
      });
  }
}

/// Writes E's key at k, innermost first; returns the end.
template <class E>
constexpr index_t* write_key(const E& e, index_t* k) {
  for_each_key(e, [&](index_t v) { *k++ = v; });
  return k;
}

/// ORs into diff the bits in which E's key differs from the one at k (diff stays 0 where they
/// are equal); returns where that key ends. Compared value by value as the chain is read, not
/// written out and then compared: the compiler compared a key just written value by value with
/// wide loads, which cannot be forwarded from those stores and wait for them.
template <class E>
constexpr const index_t* key_differs(const E& e, const index_t* k, index_t& diff) {
  for_each_key(e, [&](index_t v) { diff |= v ^ *k++; });
  return k;
}

/// A small plain copy ready to run as a loop nest (eval/nest.hpp's make_nest): its loops in bytes
/// and the instantiation of kernels::nest_loops that moves its elements, so that a memo hit runs
/// it without converting loops or choosing a kernel again.
/// Example: FLUX pack (1,3,6,6) fp32 -> elem 8, loops (3,3,3,2):(48,8,144,24):(144,48,16,8),
/// run = nest_loops<8, fixed, 2>.
struct nest_setup {
  using kernel = void (*)(const byte_loop* l, int n, const char* s, char* d, index_t elem);
  kernel run;  ///< null where none is kept
  int n;
  index_t elem, src_off, dst_off;  ///< bytes
  byte_loop l[max_loops];          ///< outermost first, [0, n)

  /// Runs the nest, src and dst pointing where the plan's offsets count from.
  void operator()(const char* src, char* dst) const { run(l, n, src + src_off, dst + dst_off, elem); }
};

/// A plain plan ready to run: the nest's setup where the plan runs as a nest (nest.run set),
/// else, where valid, the engine's plan before any streaming decision (which depends on the
/// destination's address) and a transpose's row offsets, when they fit.
struct engine_setup {
  static constexpr int max_offsets = 256;
  /// Moves n elements, element i from s + off[i] to d + i * (its size) (eval/gather_table.hpp).
  using gather_kernel = void (*)(const index_t* off, index_t n, const char* s, char* d);
  bool valid;
  nest_setup nest;
  gather_kernel gather;  ///< non-null: the kept nest runs as the table off[0, gathered)
  index_t gathered;
  engine_plan ep;
  index_t off[max_offsets];  ///< A's nA source offsets, then B's nB destination offsets (or the
                             ///< nest's table: the engine's and the nest's setups exclude each other)
};

/// One memo entry: the key, the plan, the element spans the overlap test reads, and the engine's
/// setup for a copy that takes the engine below every streaming threshold.
template <int K>
struct plan_memo {
  bool valid;
  index_t key[K];
  loop_plan plan;  ///< a plain plan
  index_t slo, shi, dlo, dhi;
  engine_setup engine;
};

/// The calling thread's entry for copies from chains of type S into chains of type D.
/// constinit: a thread_local with a constant initialiser needs no guard on each access.
template <class S, class D>
plan_memo<key_len<S>() + key_len<D>()>& memo_of() {
  constinit static thread_local plan_memo<key_len<S>() + key_len<D>()> m{};
  return m;
}

}  // namespace detail
}  // namespace lazyview
