// expect: lazyview: cannot infer -1: the input's number of elements is not divisible by the product of the other sizes; fix the sizes
// expect: diag::infer_indivisible.*op_view.*sizes<2, 3, 4>.*sizes<5, -1>
// view<5, -1>(): 24 elements cannot be split into rows of 5.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).view<5, -1>();
  (void)v;
}
