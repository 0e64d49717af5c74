// expect: lazyview: dimension out of range; dims must lie in \[-rank, rank-1\]
// expect: diag::dim_out_of_range.*op_transpose.*sizes<2, 3, 4>.*sizes<3
// transpose(c<0>, c<3>) of a rank-3 input: dims lie in [-3, 2].
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  using lazyview::c;
  auto v = lazyview::from_blob<2, 3, 4>(p).transpose(c<0>, c<3>);
  (void)v;
}
