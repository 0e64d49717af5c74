// expect: lazyview: select\(\)/narrow\(\)/slice\(\): index out of range for the dimension's size
// expect: diag::index_out_of_range.*op_select.*sizes<2, 3, 4>.*sizes<2
// select(c<0>, c<2>) of a static (2,3,4) input: dim 0 has indices 0 and 1 (and -2, -1).
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  using lazyview::c;
  auto v = lazyview::from_blob<2, 3, 4>(p).select(c<0>, c<2>);
  (void)v;
}
