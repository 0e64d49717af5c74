// Property tests of lazyview (fixed seeds, random shapes and strides, ranks 1-6).
// The laws live in laws_layout.cpp, laws_fold.cpp and laws_copy.cpp.
#define BOOST_TEST_MODULE laws
#include <boost/test/unit_test.hpp>
