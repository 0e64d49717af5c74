// expect: lazyview: dimension out of range; dims must lie in \[-rank, rank-1\]
// expect: diag::dim_out_of_range.*op_permute.*sizes<2, 3, 4>.*sizes<3
// permute<0, 1, 3>() of a rank-3 input: 3 is not a dim (checked before duplicates, as in PyTorch).
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).permute<0, 1, 3>();
  (void)v;
}
