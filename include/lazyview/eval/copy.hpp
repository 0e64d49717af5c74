#pragma once
// copy() and contiguous(): fold both sides, plan once, run one fused loop nest.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "engine_entry.hpp"
#include "plan_memo.hpp"
#include "tensor.hpp"
#include "threads.hpp"

namespace lazyview {

/// The plan that writes a fold row-major into a fresh buffer of its sizes: what contiguous()
/// runs and explain() shows. @pre src has its physical levels (physical(s)).
template <int L>
constexpr copy_plan contiguous_plan(const fold_state<L>& src) {
  fold_state<1> d{};
  fold_leaf(d, src.sizes, contiguous_strides(src.sizes));
  return make_plan(src, d);  // a destination's sizes, strides and offset suffice (make_plan)
}

namespace detail {

/// The chain an argument stands for: a tensor's ref() (mutable for a mutable tensor), else itself.
template <class E>
decltype(auto) chain_of(E& e) {
  if constexpr (requires { e.ref(); })
    return e.ref();
  else
    return (e);
}

/// Runs a plain plan of T elements (eval/engine_entry.hpp); `keep`: see run_plain.
template <class T>
void run_plain_plan(const loop_plan& p, const T* src, T* dst, threads th, engine_setup* keep = nullptr) {
  run_plain(p, reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst), static_cast<index_t>(sizeof(T)), th,
            keep);
}

/// Runs a plan (sf: the source's physical fold, for the levels below a stacked plan).
template <class T, int L1>
void run_plan(const copy_plan& p, const fold_state<L1>& sf, const T* src, T* dst, threads th) {
  if (p.plain())
    run_plain_plan(p, src, dst, th);
  else
    run_general_plan(p, sf.lv, sf.nlev - 1, reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst),
                     static_cast<index_t>(sizeof(T)), th);
}

/// Plans and runs a copy; `keep(plan)` sees the plan first when it is plain (the memo's store),
/// and returns where the engine's setup may go.
template <class T, int L1, int L2, class Keep = std::nullptr_t>
void execute(const fold_state<L1>& sf_view, const T* src, const fold_state<L2>& df_view, T* dst, threads th,
             Keep keep = nullptr) {
  if (sf_view.empty || df_view.empty || sf_view.numel().v == 0) return;
  auto go = [&](const auto& sf) {
    const copy_plan p = make_plan(sf, df_view);
    if constexpr (!std::is_same_v<Keep, std::nullptr_t>) {
      if (p.plain()) {
        run_plain_plan(p, src, dst, th, keep(p));
        return;
      }
    }
    run_plan(p, sf, src, dst, th);
  };
  // make_plan reads only the destination's sizes, strides and offset, which a view's fold holds
  // as they are; and a source past a copying reshape holds its levels already. Copying either
  // state was 370 of the 6100 instructions of a dynamic (1,16,4,4) FLUX pack.
  if (sf_view.phys)
    go(sf_view);
  else
    go(physical(sf_view));
}

/// The fold of E with its physical levels, and the plan that writes it row-major: for a static
/// chain both are constants, so contiguous() starts copying without planning.
template <class E>
inline constexpr auto static_physical_v = physical(static_fold_v<E>);
template <class E>
inline constexpr copy_plan static_contiguous_plan_v = contiguous_plan(static_physical_v<E>);

/// The plan of copy() between two static chains, a constant like static_contiguous_plan_v.
/// @pre static_copy_runs_v<S, D> (make_plan needs equal sizes and a destination view).
template <class S, class D>
inline constexpr copy_plan static_copy_plan_v = make_plan(static_physical_v<S>, static_physical_v<D>);

/// Whether copy() runs static_copy_plan_v: both chains static, of equal sizes, into a view. Any
/// other static pair takes the run-time path, which throws PyTorch-style before planning (the
/// constant plan of a mismatched pair would not even compile: its modes never meet).
template <class S, class D>
inline constexpr bool static_copy_runs_v = [] {
  if constexpr (S::is_static && D::is_static && S::rank == D::rank)
    return static_shown_v<S>.sizes == static_shown_v<D>.sizes && static_shown_v<D>.view;
  else
    return false;
}();

/// Static copies of up to this many bytes run as a loop nest whose sizes and strides are all
/// constants (static_nest), unrolled and vectorised by the compiler like a hand-written loop;
/// larger ones take the engine, whose planning (engine plan, offset tables: about 200 ns) those
/// small copies cannot repay and whose tiles win from about 32 KiB. FLUX (1,16,H,H) fp32, g++ 12
/// -O3 -march=native, ns per copy, nest / engine / the plain loop of bench/loops.hpp's kind:
/// pack H=4 (1 KiB) 55 / 265 / 43, H=8 164 / 395 / 142, H=16 594 / 737 / 569, H=32 (64 KiB)
/// 3942 / 2467 / 4138; unpack H=16 242 / 712 / 682; bf16 pack (1,16,32,32) (32 KiB) 2742 / 1270;
/// (1,3,6,6) pack 28 / 197 / 54.
#ifndef LAZYVIEW_STATIC_NEST_BYTES
#define LAZYVIEW_STATIC_NEST_BYTES (index_t{16} << 10)
#endif
inline constexpr index_t static_nest_bytes = LAZYVIEW_STATIC_NEST_BYTES;

/// Loops [K, P.nloops) of the constant plan P, outermost first. An innermost loop contiguous on
/// both sides (FLUX's pairs) moves as one fixed-size memcpy: copied element by element through
/// the caller's pointers, which g++ must assume may alias, its loads and stores kept their order
/// and the nest ran slower than the engine's dynamic path, FLUX pack fp32 (1,16,8,8) 322 ns
/// against 252, (1,7,14,14) 433 against 325, (1,16,16,16) 1290 against 864; as one memcpy 207,
/// 155, 952 (unpack (1,16,8,8) 324 -> 260, dynamic 254; medians of 15 x 2000 copies, g++ 12 -O3
/// -march=native, 2-core Zen 3 VM). (__restrict on s and d changed nothing.)
/// Example: pack (1,16,8,8): loops (4,4,16,2,2):(16,2,64,8,1):(256,64,4,2,1), the last pair
/// by an 8-byte memcpy.
template <const copy_plan& P, int K, class T>
inline void static_nest(const T* s, T* d) {
  if constexpr (K == P.nloops) {
    *d = *s;
  } else if constexpr (K + 1 == P.nloops && P.loops[K].ss == 1 && P.loops[K].ds == 1) {
    std::memcpy(static_cast<void*>(d), static_cast<const void*>(s), sizeof(T) * static_cast<std::size_t>(P.loops[K].n));
  } else {
    constexpr index_t n = P.loops[K].n, ss = P.loops[K].ss, ds = P.loops[K].ds;
    for (index_t i = 0; i < n; ++i) static_nest<P, K + 1>(s + i * ss, d + i * ds);
  }
}

/// Whether the constant plan P of T elements runs as a static_nest.
template <const copy_plan& P, class T>
inline constexpr bool static_nest_runs_v = P.plain() && P.numel * index_t{sizeof(T)} <= static_nest_bytes;

/// Runs the constant plan P (sf: the source's physical fold, for a plan that is not plain).
template <const copy_plan& P, class T, int L1>
void run_static_plan(const fold_state<L1>& sf, const T* src, T* dst, threads th) {
  if constexpr (static_nest_runs_v<P, T>)
    static_nest<P, 0>(src + P.src_offset, dst + P.dst_offset);
  else
    run_plan(P, sf, src, dst, th);
}

/// The element offsets [lo, hi] a fold can touch (from its memory-level modes).
template <int L>
constexpr void memory_span(const fold_state<L>& s, index_t& lo, index_t& hi) {
  lo = hi = s.phys ? s.lv[0].offset.v : s.offset.v;
  if (s.phys) {
    const level& l = s.lv[0];
    for (int m = 0; m < l.msize.n; ++m) {
      const index_t ext = (l.msize[m].v - 1) * l.mstride[m].v;
      (ext < 0 ? lo : hi) += ext;
    }
  } else {
    for (int d = 0; d < s.rank(); ++d) {
      const index_t ext = (s.sizes[d].v - 1) * s.strides[d].v;
      (ext < 0 ? lo : hi) += ext;
    }
  }
}

/// True when elements [slo, shi] from src and [dlo, dhi] from dst share a byte.
template <class T>
bool spans_intersect(const T* src, index_t slo, index_t shi, const T* dst, index_t dlo, index_t dhi) {
  const auto a0 = reinterpret_cast<std::uintptr_t>(src + slo), a1 = reinterpret_cast<std::uintptr_t>(src + shi + 1);
  const auto b0 = reinterpret_cast<std::uintptr_t>(dst + dlo), b1 = reinterpret_cast<std::uintptr_t>(dst + dhi + 1);
  return a0 < b1 && b0 < a1;
}

/// True when the bytes src may read and the bytes dst may write intersect.
template <class T, int L1, int L2>
bool overlaps(const fold_state<L1>& sf, const T* src, const fold_state<L2>& df, const T* dst) {
  if (sf.empty || df.empty) return false;
  index_t slo, shi, dlo, dhi;
  memory_span(sf, slo, shi);
  memory_span(df, dlo, dhi);
  return spans_intersect(src, slo, shi, dst, dlo, dhi);
}

/// Runs the memo's plan when the pair's key matches it (diff == 0) and the spans do not overlap;
/// false otherwise (the caller then takes the full path, which stores a new entry).
template <class T, int K>
bool run_memo(const plan_memo<K>& m, index_t diff, const T* src, T* dst, threads th) {
  if (!m.valid || diff != 0 || spans_intersect(src, m.slo, m.shi, dst, m.dlo, m.dhi)) return false;
  if (m.engine.gather)
    m.engine.gather(m.engine.off, m.engine.gathered, reinterpret_cast<const char*>(src) + m.engine.nest.src_off,
                    reinterpret_cast<char*>(dst) + m.engine.nest.dst_off);
  else if (m.engine.nest.run)
    m.engine.nest(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst));
  else if (m.engine.valid)
    run_engine_setup(m.engine.ep, m.engine.ep.kind == engine_plan::transpose ? m.engine.off : nullptr,
                     reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst),
                     m.plan.numel * static_cast<index_t>(sizeof(T)), th);
  else
    run_plain_plan(m.plan, src, dst, th);
  return true;
}

}  // namespace detail

/// Writes src into dst (any writable view of equal sizes), in one fused pass.
/// @pre sizes equal (else shape_error); dst is a view of its memory (else shape_error).
/// Example: copy(x.view(B,C,H/2,2,W/2,2).permute(0,2,4,1,3,5), out.view(B,H/2,W/2,C,2,2)).
template <class Src, class Dst>
void copy(const Src& src_expr, Dst&& dst_expr, threads th = {}) {
  const auto& src = detail::chain_of(src_expr);
  const auto& dst = detail::chain_of(dst_expr);
  using S = std::remove_cvref_t<decltype(src)>;
  using D = std::remove_cvref_t<decltype(dst)>;
  static_assert(S::rank == D::rank, "lazyview: copy(): source and destination ranks differ");
  static_assert(!std::is_const_v<typename D::value_type>, "lazyview: copy(): the destination is read-only (const T)");
  static_assert(std::is_same_v<std::remove_const_t<typename S::value_type>, typename D::value_type>,
                "lazyview: copy(): source and destination element types differ");
  constexpr int K = detail::key_len<S>() + detail::key_len<D>();
  constexpr bool memo = plan_memo_enabled && K > 0 && !detail::static_copy_runs_v<S, D>;
  if constexpr (memo) {
    auto& m = detail::memo_of<S, D>();
    index_t diff = 0;
    detail::key_differs(dst, detail::key_differs(src, m.key, diff), diff);
    if (detail::run_memo(m, diff, src.base(), dst.base(), th)) return;
  }
  decltype(auto) sf = fold(src);
  decltype(auto) df = fold(dst);
  bool same = true;
  for (int i = 0; i < S::rank; ++i) same = same && sf.sizes[i].v == df.sizes[i].v;
  if (!same) {
    error_info e{};
    e.code = err::copy_mismatch;
    to_list(sf.sizes, e.a, e.na);
    to_list(df.sizes, e.b, e.nb);
    throw_error(e);
  }
  if (!df.view)
    throw shape_error(
        "copy(): the destination is not a view of its memory (a reshape in its chain copies in PyTorch); "
        "write into a view instead");
  if (detail::overlaps(sf, src.base(), df, dst.base())) {
    // A copy through a view into the same memory: read everything first, then write.
    const auto staged = evaluate_contiguous(src, th);
    const auto ref = staged.ref();
    detail::execute(fold(ref), staged.data(), df, dst.base(), th);
    return;
  }
  if constexpr (detail::static_copy_runs_v<S, D>) {
    if (!sf.empty && !df.empty) detail::run_static_plan<detail::static_copy_plan_v<S, D>>(detail::static_physical_v<S>, src.base(), dst.base(), th);
  } else if constexpr (memo) {
    detail::execute(sf, src.base(), df, dst.base(), th, [&](const copy_plan& p) {
      auto& m = detail::memo_of<S, D>();
      detail::write_key(dst, detail::write_key(src, m.key));
      p.copy_to(m.plan);
      detail::memory_span(sf, m.slo, m.shi);
      detail::memory_span(df, m.dlo, m.dhi);
      m.valid = true;
      return &m.engine;
    });
  } else {
    detail::execute(sf, src.base(), df, dst.base(), th);
  }
}

/// contiguous(th): a new owning row-major tensor holding e's values, written on th's threads.
template <class E>
tensor<std::remove_const_t<typename E::value_type>, E::rank> evaluate_contiguous(const E& e, threads th) {
  using T = std::remove_const_t<typename E::value_type>;
  decltype(auto) shown = shown_of(e);  // the sizes without folding the physical side
  tensor<T, E::rank> out(shown.sizes, typename tensor<T, E::rank>::uninitialized{});
  if constexpr (E::is_static) {
    if (!shown.empty) detail::run_static_plan<detail::static_contiguous_plan_v<E>>(detail::static_physical_v<E>, e.base(), out.data(), th);
  } else {
    copy(e, out.ref(), th);  // through the plan memo; a fresh buffer overlaps nothing
  }
  return out;
}

/// contiguous(): on the calling thread.
template <class E>
tensor<std::remove_const_t<typename E::value_type>, E::rank> evaluate_contiguous(const E& e) {
  return evaluate_contiguous(e, threads{1});
}

}  // namespace lazyview
