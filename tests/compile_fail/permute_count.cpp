// expect: lazyview: permute\(\) needs exactly one dim per input dimension; the number of dims differs from the rank
// expect: diag::permute_count.*op_permute.*sizes<2, 3, 4>.*sizes<0, 1>
// permute<0, 1>() of a rank-3 input: one dim missing.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).permute<0, 1>();
  (void)v;
}
