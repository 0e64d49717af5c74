#pragma once
// The engine's entry points: what copy() and contiguous() call once a plan is known, in bytes and
// char pointers, with no element type. Everything below them (the nest, the engine plan, the
// kernels, the pool) is code that does not depend on the chain, the same in every translation unit.
//
// Header-only (the default), they are inline, so every translation unit that copies compiles the
// whole engine again: of the 7.6 s that g++ 12 -O2 takes over bench/compile_time/flux_lazyview.cpp,
// 3.8 s, and 85 of its 162 KB of code (docs/index.md). To compile it once instead:
//   - define LAZYVIEW_SEPARATE_ENGINE in every translation unit (with CMake,
//     target_compile_definitions(app PRIVATE LAZYVIEW_SEPARATE_ENGINE));
//   - in exactly one of them, also define LAZYVIEW_ENGINE_IMPLEMENTATION before including
//     <lazyview/lazyview.hpp>.
// The other translation units then see declarations only and include none of the engine's headers.
// That one translation unit's flags decide the engine's code: its target (-mavx2, -march=...)
// picks the micro-kernels, and its LAZYVIEW_NEST_BYTES, LAZYVIEW_NEST_UNTILED_BYTES,
// LAZYVIEW_SINGLE_THREAD_BYTES, LAZYVIEW_POOL_SPIN_US (only the engine runs the pool) and
// streaming thresholds are the ones in force. The plans the memo keeps (engine_setup) have one
// layout whatever the target, so translation units built for different targets may share them.
#include "../config.hpp"
#include "cpu_tuning.hpp"  // set_tuning(), for translation units that see no engine
#include "plan.hpp"
#include "plan_memo.hpp"
#include "threads.hpp"

#if defined(LAZYVIEW_ENGINE_IMPLEMENTATION) && !defined(LAZYVIEW_SEPARATE_ENGINE)
#error "lazyview: LAZYVIEW_ENGINE_IMPLEMENTATION needs LAZYVIEW_SEPARATE_ENGINE, defined in every translation unit, or they all compile the engine too (see eval/engine_entry.hpp)"
#endif

#if defined(LAZYVIEW_SEPARATE_ENGINE)
#define LAZYVIEW_ENGINE_LINKAGE
#else
#define LAZYVIEW_ENGINE_LINKAGE inline
#endif

#if !defined(LAZYVIEW_SEPARATE_ENGINE) || defined(LAZYVIEW_ENGINE_IMPLEMENTATION)
#define LAZYVIEW_ENGINE_DEFINED 1
#include <vector>

#include "engine.hpp"
#include "gather_table.hpp"
#include "kernels.hpp"
#include "make_engine_plan.hpp"
#include "nest.hpp"
#include "seam_kernels.hpp"
#else
#define LAZYVIEW_ENGINE_DEFINED 0
#endif

namespace lazyview {

/// Copies smaller than this stay on the calling thread, whatever threads{} asks: handing half to
/// a worker costs a wake-up (about 20 us on the 2-core VM of docs/benchmarks.md, where FLUX pack
/// fp32 at 2 threads against 1 took 30 us against 20 at 576 KiB, 37 against 44 at 1 MiB).
#ifndef LAZYVIEW_SINGLE_THREAD_BYTES
#define LAZYVIEW_SINGLE_THREAD_BYTES (index_t{1} << 20)
#endif
inline constexpr index_t single_thread_bytes = LAZYVIEW_SINGLE_THREAD_BYTES;

namespace detail {

/// Runs an engine plan with its offset tables (off: null unless a transpose), on as many threads
/// as th asks when the copy moves `bytes` of at least single_thread_bytes.
LAZYVIEW_ENGINE_LINKAGE void run_engine_setup(const engine_plan& ep, const index_t* off, const char* src, char* dst,
                                              index_t bytes, threads th);

/// Runs a plain plan of `elem`-byte elements: the nest where takes_nest says so (up to nest_bytes,
/// or nest_untiled_bytes for elements without a tile kernel) or the engine plan says so
/// (plan_takes_nest: small units, or a small strided plan), the engine otherwise.
/// `keep`, when given, receives the nest's setup, or the engine's where it does not depend on
/// the destination's address (no streaming stores at this size), for the plan memo; whichever it
/// does not receive is marked absent (nest.run null, valid false), so a memo entry never keeps
/// the setup of an earlier plan.
/// Example: FLUX pack (1,16,4,4) fp32, (2,2,16,2,2):(8,2,16,4,1) -> row-major, elem 4: the nest.
LAZYVIEW_ENGINE_LINKAGE void run_plain(const loop_plan& p, const char* src, char* dst, index_t elem, threads th,
                                       engine_setup* keep);

/// Runs a plan that is not plain (segment loops, stacked levels) with per-element index
/// arithmetic (run_general); lv[0..nlev) are the source's levels below the plan's.
LAZYVIEW_ENGINE_LINKAGE void run_general_plan(const copy_plan& p, const level* lv, int nlev, const char* src,
                                              char* dst, index_t elem, threads th);

#if LAZYVIEW_ENGINE_DEFINED

/// The threads a copy of `bytes` runs on: 1 under single_thread_bytes, else what th asks.
inline unsigned threads_for(index_t bytes, threads th) {
  return bytes < single_thread_bytes ? 1u : resolve_threads(th);
}

/// Runs transpose e as peel_rows_to_lines cut it: each thread's range of the body's work units,
/// then the same share of the seams' units.
inline void run_peeled(const engine_plan& e, const line_peel& c, const char* src, char* dst, threads th) {
  std::vector<index_t> off(static_cast<std::size_t>(c.body.nA + c.body.nB + e.nB));
  index_t* const bodyA = off.data();
  index_t* const bodyB = bodyA + c.body.nA;
  index_t* const seamB = bodyB + c.body.nB;
  kernels::group_offsets(c.body.ga, c.body.na, true, bodyA);
  kernels::group_offsets(c.body.gb, c.body.nb, false, bodyB);
  kernels::group_offsets(e.gb, e.nb, false, seamB);
  const index_t U = c.body.work_units(), S = seam_units(e);
  parallel_for(U, resolve_threads(th), [&](index_t a, index_t b) {
    run_engine(c.body, src, dst, a, b, bodyA, bodyB);
    run_seams(e, c, src, dst, seamB, a * S / U, b * S / U);
  });
}

LAZYVIEW_ENGINE_LINKAGE void run_engine_setup(const engine_plan& ep, const index_t* off, const char* src, char* dst,
                                              index_t bytes, threads th) {
  const index_t* offB = off ? off + ep.nA : nullptr;
  parallel_for(ep.work_units(), threads_for(bytes, th),
               [&](index_t a, index_t b) { run_engine(ep, src, dst, a, b, off, offB); });
}

LAZYVIEW_ENGINE_LINKAGE void run_plain(const loop_plan& p, const char* src, char* dst, index_t elem, threads th,
                                       engine_setup* keep) {
  const index_t bytes = p.numel * elem;
  if (takes_nest(p, elem)) {
    if (keep) {
      keep->valid = false;
      make_nest(p, elem, keep->nest);
      keep_gather_table(*keep);
      keep->nest(src, dst);
    } else {
      run_nest(p, src, dst, elem);
    }
    return;
  }
  // A transpose's row offsets, computed once: A's on the source side, then B's on the
  // destination side (per work unit, A's cost 17% of the instructions of an in-cache FLUX pack).
  // (on the stack where they fit: the heap's allocation and zeroing cost a small copy 10%.)
  // Narrow transposes read neither table, whose long group can be millions of entries:
  // (2000000,3).t() fp32 wrote a 16 MB table per call.
  auto offsets = [&](const engine_plan& ep, index_t* room, std::vector<index_t>& heap) -> index_t* {
    if (ep.kind != engine_plan::transpose || narrow_transpose(ep) != narrow_kind::none) return nullptr;
    index_t* off = room;
    if (ep.nA + ep.nB > engine_setup::max_offsets) {
      heap.resize(static_cast<std::size_t>(ep.nA + ep.nB));
      off = heap.data();
    }
    kernels::group_offsets(ep.ga, ep.na, true, off);
    kernels::group_offsets(ep.gb, ep.nb, false, off + ep.nA);
    return off;
  };
  std::vector<index_t> heap;
  if (keep) {
    keep->nest.run = nullptr;
    keep->gather = nullptr;
    keep->valid = false;  // past never_streams_below the plan depends on the destination: not kept
  }
  if (keep && bytes < never_streams_below) {
    // Built where the memo keeps it (a plan is 2 KB; copying it in cost a missed call 3%).
    static_assert(std::is_trivially_destructible_v<engine_plan>, "built over the old one without destroying it");
    ::new (static_cast<void*>(&keep->ep)) engine_plan(make_engine_plan(p, elem));
    if (plan_takes_nest(keep->ep, p, elem, bytes, keep->nest)) {
      keep_gather_table(*keep);
      keep->nest(src, dst);
      return;
    }
    const index_t* off = offsets(keep->ep, keep->off, heap);
    keep->valid = heap.empty();
    run_engine_setup(keep->ep, off, src, dst, bytes, th);
    return;
  }
  engine_plan ep = make_engine_plan(p, elem);
  if (detail::nest_setup ns; plan_takes_nest(ep, p, elem, bytes, ns)) {
    ns(src, dst);
    return;
  }
  // Resolved once: threads{0} asks the system for its processor count, which glibc reads from /sys.
  const unsigned n = threads_for(bytes, th);
  use_streaming_stores(ep, dst, bytes, n);  // before the offsets: it may regroup A
  if (const line_peel c = peel_rows_to_lines(ep, p, elem, dst, bytes, n); c.k >= 0) {
    run_peeled(ep, c, src, dst, threads{n});
    return;
  }
  index_t local[engine_setup::max_offsets];
  run_engine_setup(ep, offsets(ep, local, heap), src, dst, bytes, threads{n});
}

LAZYVIEW_ENGINE_LINKAGE void run_general_plan(const copy_plan& p, const level* lv, int nlev, const char* src,
                                              char* dst, index_t elem, threads th) {
  parallel_for(outer_count(p), threads_for(p.numel * elem, th), [&](index_t a, index_t b) {
    run_general(p, lv, nlev, src, dst, static_cast<std::size_t>(elem), a, b);
  });
}

#endif  // LAZYVIEW_ENGINE_DEFINED

}  // namespace detail
}  // namespace lazyview

#undef LAZYVIEW_ENGINE_LINKAGE
#undef LAZYVIEW_ENGINE_DEFINED
