#pragma once
// Which machine's measurements the engine's memory hints follow (eval/memory_hints.hpp).
// The hints were tuned on 2-core AMD Zen VMs (Zen 3, 4, 5), and most of them hold elsewhere; a few
// choices turned the other way on an Intel Xeon VM (Emerald Rapids), whose hardware prefetchers
// follow the streams of a transpose that the Zen tuning asks for by software (the rules and their
// numbers: prefetch_next_unit and far_row_blocks there, and odd_source_ahead_bytes, the requests
// of streamed rows of odd-sized elements). Each engine plan records the tuning it was
// made under (engine_plan::tune), so the rules are predicates of the plan like the others, and tests
// pin both ways on any machine.
//
// The tuning is read once per process from the CPU (CPUID leaf 0's vendor "GenuineIntel" ->
// intel; an AMD Zen 3 core by leaf 1's family and model -> zen3, any other of family 19h -> zen4;
// anything else, other architectures included -> zen), unless the environment variable
// LAZYVIEW_TUNING is `zen`, `zen3`, `zen4` or `intel`; set_tuning() replaces it for plans made
// afterwards. (The plan memo keeps plans only below never_streams_below, 2 MiB, where the rules
// decide alike under every tuning but for the order of in-place whole-line tiles, which moves the
// same bytes (tiles_of_a_in_place): a kept plan keeps its tuning's order until it is made again.)
#include <atomic>
#include <cstdlib>
#include <cstring>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define LAZYVIEW_HAVE_CPUID 1
#endif

namespace lazyview {

/// The measured tuning a plan follows: `zen`, the AMD VMs' (the default); `intel`, the Intel
/// Xeon VM's; `zen3`, the Zen 3 VM's: zen's, but for one rule, which turned the other way there
/// (two threads stream as one does, streaming_threshold_of); `zen4`, the Zen 4 VM's: zen's, but
/// for four rules (strided scatters and expansions store under a mask at any size,
/// kernels::masked_stores; in-place tiles of 4- and 8-byte elements into rows at different
/// offsets into a line store across lines, not joined in registers, kernels::joined_rows_fit;
/// streamed whole-line tiles over a source each unit reads in one stretch take four lines of
/// each row a unit, dense_source_line_blocks; streamed byte transposes in whole-line tiles go by
/// staged lines, staged_lines).
enum class tuning : unsigned char { zen, intel, zen3, zen4 };

/// The family and model that CPUID leaf 1's signature (eax) encodes: the extended family added
/// to base family 0Fh, the extended model as the high nibble for base families 06h and 0Fh.
/// Example: 0x00A10F11 (Genoa): family 19h, model 11h; 0x000806F8 (Sapphire Rapids): 06h, 8Fh.
constexpr unsigned cpuid_family(unsigned eax) {
  const unsigned base = (eax >> 8) & 0xFu;
  return base == 0xFu ? base + ((eax >> 20) & 0xFFu) : base;
}
constexpr unsigned cpuid_model(unsigned eax) {
  const unsigned base = (eax >> 8) & 0xFu;
  return ((eax >> 4) & 0xFu) | (base == 0xFu || base == 6u ? ((eax >> 16) & 0xFu) << 4 : 0u);
}

/// Whether CPUID leaf 1's signature (eax) is an AMD Zen 3 core: family 19h, models 00h-0Fh
/// (Milan), 20h-2Fh (Vermeer) and 40h-5Fh (Rembrandt, Cezanne); Zen 4 has 10h-1Fh and 60h
/// onwards, Zen 5 family 1Ah. Example: 0x00A00F11 (family 19h, model 01h: the 2-core EPYC VM
/// of zen3's measurements) yes; 0x00A10F11 (Genoa, model 11h) no.
constexpr bool zen3_signature(unsigned eax) {
  const unsigned model = cpuid_model(eax);
  return cpuid_family(eax) == 0x19u &&
         (model < 0x10u || (model >= 0x20u && model < 0x30u) || (model >= 0x40u && model < 0x60u));
}

/// Whether CPUID leaf 1's signature (eax) is an AMD Zen 4 core: family 19h but not Zen 3
/// (zen3_signature). Example: 0x00A10F11 (Genoa, model 11h: the 2-core EPYC VM of zen4's
/// measurements) yes; 0x00A00F11 (Milan) no; 0x00B00F21 (Zen 5, family 1Ah) no.
constexpr bool zen4_signature(unsigned eax) { return cpuid_family(eax) == 0x19u && !zen3_signature(eax); }

namespace detail {

/// The tuning named by LAZYVIEW_TUNING, or else by the CPU.
/// Example: LAZYVIEW_TUNING unset on an Intel Xeon -> tuning::intel; =zen there -> tuning::zen;
/// unset on an EPYC 7003 (Milan) -> tuning::zen3; on an EPYC 9004 (Genoa) -> tuning::zen4.
inline tuning detect_tuning() {
  if (const char* env = std::getenv("LAZYVIEW_TUNING")) {
    if (std::strcmp(env, "intel") == 0) return tuning::intel;
    if (std::strcmp(env, "zen") == 0) return tuning::zen;
    if (std::strcmp(env, "zen3") == 0) return tuning::zen3;
    if (std::strcmp(env, "zen4") == 0) return tuning::zen4;
  }
#if defined(LAZYVIEW_HAVE_CPUID)
  unsigned a = 0, b = 0, c = 0, d = 0;
  // vendor string in ebx, edx, ecx: "Genu" "ineI" "ntel", "Auth" "enti" "cAMD"
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    if (b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu) return tuning::intel;
    if (b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u && __get_cpuid(1, &a, &b, &c, &d)) {
      if (zen3_signature(a)) return tuning::zen3;
      if (zen4_signature(a)) return tuning::zen4;
    }
  }
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
