// expect: lazyview: select\(\)/narrow\(\)/slice\(\): index out of range for the dimension's size
// expect: diag::index_out_of_range.*op_narrow.*sizes<2, 3, 4>.*sizes<3, 2
// narrow(c<2>, c<3>, c<2>) of a static (2,3,4) input: 3 + 2 exceeds size 4.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  using lazyview::c;
  auto v = lazyview::from_blob<2, 3, 4>(p).narrow(c<2>, c<3>, c<2>);
  (void)v;
}
