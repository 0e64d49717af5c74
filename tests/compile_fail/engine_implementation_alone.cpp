// expect: lazyview: LAZYVIEW_ENGINE_IMPLEMENTATION needs LAZYVIEW_SEPARATE_ENGINE, defined in every translation unit, or they all compile the engine too
// The engine's one translation unit, in a build without LAZYVIEW_SEPARATE_ENGINE: every other
// translation unit would compile the engine as well (eval/engine_entry.hpp).
#define LAZYVIEW_ENGINE_IMPLEMENTATION
#include <lazyview/lazyview.hpp>
