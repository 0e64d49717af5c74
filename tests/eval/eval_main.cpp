// Evaluation correctness of contiguous() and copy(): element types, ranks 1..8, stride 0,
// overlapping windows, zero-size, threads, misaligned and const bases (eval_*.cpp).
#define BOOST_TEST_MODULE eval
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include <lazyview/eval/cpu_tuning.hpp>  // (set_tuning only: this file compiles into every eval binary)

// The engine's memory hints follow a tuning read from the CPU (eval/cpu_tuning.hpp); the tests
// pin plans made under the zen one unless LAZYVIEW_TUNING names one (ctest runs an evaluation
// binary once more under intel: every value check then meets that tuning's plans too). Cases
// that state one tuning's plans set it themselves (evaltest::tuning_scope).
struct zen_unless_named {
    zen_unless_named()
    {
        if (std::getenv("LAZYVIEW_TUNING") == nullptr) lazyview::set_tuning(lazyview::tuning::zen);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(zen_unless_named);
