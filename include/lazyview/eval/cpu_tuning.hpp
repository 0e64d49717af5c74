#pragma once
// Which machine's measurements the engine's memory hints follow (eval/memory_hints.hpp).
// The hints were tuned on 2-core AMD Zen VMs (Zen 3, 4, 5), and most of them hold elsewhere; a few
// choices turned the other way on an Intel Xeon VM (Emerald Rapids), whose hardware prefetchers
// follow the streams of a transpose that the Zen tuning asks for by software (the rules and their
// numbers: prefetch_next_unit and far_row_blocks there). Each engine plan records the tuning it was
// made under (engine_plan::tune), so the rules are predicates of the plan like the others, and tests
// pin both ways on any machine.
//
// The tuning is read once per process from the CPU's vendor (CPUID leaf 0: "GenuineIntel" ->
// intel, anything else, other architectures included -> zen), unless the environment variable
// LAZYVIEW_TUNING is `zen` or `intel`; set_tuning() replaces it for plans made afterwards. (The
// plan memo keeps plans only below never_streams_below, 2 MiB, where every rule decides the same
// under either tuning.)
#include <atomic>
#include <cstdlib>
#include <cstring>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define LAZYVIEW_HAVE_CPUID 1
#endif

namespace lazyview {

/// The measured tuning a plan follows: `zen`, the AMD VMs' (the default); `intel`, the Intel
/// Xeon VM's.
enum class tuning : unsigned char { zen, intel };

namespace detail {

/// The tuning named by LAZYVIEW_TUNING, or else by the CPU's vendor.
/// Example: LAZYVIEW_TUNING unset on an Intel Xeon -> tuning::intel; =zen there -> tuning::zen.
inline tuning detect_tuning() {
  if (const char* env = std::getenv("LAZYVIEW_TUNING")) {
    if (std::strcmp(env, "intel") == 0) return tuning::intel;
    if (std::strcmp(env, "zen") == 0) return tuning::zen;
  }
#if defined(LAZYVIEW_HAVE_CPUID)
  unsigned a = 0, b = 0, c = 0, d = 0;
  // vendor string in ebx, edx, ecx: "Genu" "ineI" "ntel"
  if (__get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu)
    return tuning::intel;
#endif
  return tuning::zen;
}

inline std::atomic<tuning>& tuning_slot() {
  static std::atomic<tuning> t{detect_tuning()};
  return t;
}

}  // namespace detail

/// The tuning that plans made now follow.
inline tuning current_tuning() { return detail::tuning_slot().load(std::memory_order_relaxed); }

/// Makes plans made from now on follow `t`, whatever the CPU (a benchmark comparing both, a
/// machine whose vendor's choice measures worse). Copies already running keep their plan.
inline void set_tuning(tuning t) { detail::tuning_slot().store(t, std::memory_order_relaxed); }

}  // namespace lazyview
