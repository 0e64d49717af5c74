// expect: lazyview: permute\(\): duplicate dims are not allowed; each dim must appear exactly once
// expect: diag::permute_duplicate.*op_permute.*sizes<2, 3, 4>.*sizes<0, 0, 1>
// permute<0, 0, 1>(): dim 0 twice, dim 2 never.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).permute<0, 0, 1>();
  (void)v;
}
