#pragma once
// lazyview configuration: the one index type, capacities, version.
#include <cstdint>

#define LAZYVIEW_VERSION_MAJOR 0
#define LAZYVIEW_VERSION_MINOR 1
#define LAZYVIEW_VERSION_PATCH 0

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
