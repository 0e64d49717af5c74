// expect: lazyview: view\(\) size is not compatible with the input's sizes and strides \(a new dim spans two contiguous subspaces\); use reshape\(\) instead
// expect: diag::view_incompatible.*op_view.*sizes<3, 4>.*sizes<12>
// t() of a static (4,3) input has strides (1,3); merging both dims into one needs a copy.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<4, 3>(p).t().view<12>();
  (void)v;
}
