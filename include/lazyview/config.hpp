#pragma once
// lazyview configuration: the one index type, capacities, version.
#include <cstdint>

#define LAZYVIEW_VERSION_MAJOR 0
#define LAZYVIEW_VERSION_MINOR 1
#define LAZYVIEW_VERSION_PATCH 0

// The copy kernels must not depend on the optimisation level a user builds with. g++ 12 at -O2
// (CMake's RelWithDebInfo, and the default of many projects) unrolls no loop that grows the code
// and inlines less: the micro-kernels' fixed loops over arrays of vector registers (16 row loads,
// 8 unpacks) stayed loops over a stack array, a tile was a call, and copies ran 1.3-2.4x slower
// than at -O3. LAZYVIEW_UNROLL before a loop of constant trip count unrolls it completely;
// LAZYVIEW_ALWAYS_INLINE puts a micro-kernel (or a loop helper) into its caller. FLUX fp32 at
// -O2, 1 thread, before -> after (-O3): pack (1,16,128,128) in cache 88 -> 57 us (52), unpack
// 81 -> 45 us (35); (4,16,256,256) pack 25.7 -> 33.8 GB/s (34.4), unpack 27.7 -> 45.1 (44.1);
// the -O3 code measured the same as before (docs/pitfalls.md has the table).
// The tile sweeps' own lambdas are left to the compiler: forced inline they cost up to 30% at
// -O3 and -O2 alike on far-row transposes whose tiles ask for lines ahead
// ((5,15,37,5,15,19).permute(3,1,5,0,4,2) fp32 12.2 -> 8.6 GB/s), and 3% on in-cache FLUX pack.
#if defined(__clang__)
#define LAZYVIEW_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define LAZYVIEW_UNROLL _Pragma("GCC unroll 16")
#else
#define LAZYVIEW_UNROLL
#endif
#if defined(__GNUC__) || defined(__clang__)
#define LAZYVIEW_ALWAYS_INLINE __attribute__((always_inline))
#else
#define LAZYVIEW_ALWAYS_INLINE
#endif
// LAZYVIEW_NO_UNROLL before a loop keeps clang from unrolling it, where its trip counts are
// a few: clang 14 -O3 unrolled the middle loop of eval/nest.hpp's nests by 8, with 40 values
// worked out and spilled before it ran, which a nest of 3 turns never repaid (g++ -O3 unrolls
// no such loop).
#if defined(__clang__)
#define LAZYVIEW_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define LAZYVIEW_NO_UNROLL
#endif

// GCC 12's AVX-512 shuffles start from _mm512_undefined_*(), a self-initialised variable that
// -Wuninitialized reports at every use (GCC bug 105593, fixed in 13); code that runs them
// (the tiles, eval/microkernels.hpp, and every kernel they are inlined into) goes between these.
#if defined(__GNUC__) && !defined(__clang__)
#define LAZYVIEW_AVX512_WARNINGS_OFF                                  \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wuninitialized\"") \
      _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define LAZYVIEW_AVX512_WARNINGS_ON _Pragma("GCC diagnostic pop")
#else
#define LAZYVIEW_AVX512_WARNINGS_OFF
#define LAZYVIEW_AVX512_WARNINGS_ON
#endif

/// LAZYVIEW_ASSUME(cond): a precondition the optimiser may rely on and the caller guarantees (a
/// rank checked statically, a dim already wrapped). Stated where g++'s flow analysis could not
/// bound an index and warned of reads or writes out of bounds (-Warray-bounds,
/// -Wstringop-overflow) on paths that never run.
#if defined(__GNUC__) || defined(__clang__)
#define LAZYVIEW_ASSUME(cond)             \
  do {                                    \
    if (!(cond)) __builtin_unreachable(); \
  } while (0)
#else
#define LAZYVIEW_ASSUME(cond) ((void)0)
#endif

namespace lazyview {

/// The one signed index type for sizes, strides, offsets and dims (PyTorch's int64_t).
/// Mixing index types is how Hana's `size_c<2> == long_c<2>` trips static asserts, so every
/// compile-time constant in lazyview is an integral_constant<index_t, N>.
using index_t = std::int64_t;

/// Largest logical rank of any expression (PyTorch has no hard limit; 8 covers every workload).
inline constexpr int max_rank = 8;
/// Modes (hierarchical sub-dims) one layout level can hold. Splitting past it starts a new level,
/// which stays correct and only costs index arithmetic at evaluation.
inline constexpr int max_modes = 16;

}  // namespace lazyview
