// The PyTorch-oracle test executable: this TU holds the Boost.Test module; the cases are in
// generated/*.cpp (tests/oracle/gen.py, from torch 1.13).
#define BOOST_TEST_MODULE oracle
#include <boost/test/unit_test.hpp>

// The one TU that compiles the engine (CMakeLists.txt builds the oracle with LAZYVIEW_SEPARATE_ENGINE).
#define LAZYVIEW_ENGINE_IMPLEMENTATION
#include <lazyview/lazyview.hpp>

#include <stdexcept>
#include <type_traits>

// PyTorch IndexError -> lazyview::index_error, RuntimeError -> lazyview::shape_error.
static_assert(std::is_base_of_v<std::out_of_range, lazyview::index_error>);
static_assert(std::is_base_of_v<std::invalid_argument, lazyview::shape_error>);
static_assert(!std::is_base_of_v<lazyview::index_error, lazyview::shape_error>);
static_assert(!std::is_base_of_v<lazyview::shape_error, lazyview::index_error>);
