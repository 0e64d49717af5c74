// Evaluation correctness of contiguous() and copy(): element types, ranks 1..8, stride 0,
// overlapping windows, zero-size, threads, misaligned and const bases (eval_*.cpp).
#define BOOST_TEST_MODULE eval
#include <boost/test/unit_test.hpp>
