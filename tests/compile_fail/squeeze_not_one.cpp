// expect: lazyview: squeeze\(d\): dimension d does not have size 1; lazyview has static rank, so squeeze cannot be a no-op
// expect: diag::squeeze_not_one.*op_squeeze.*sizes<2, 3, 4>.*sizes<1
// squeeze(c<1>) of a static (2,3,4) input: PyTorch would return the input unchanged; lazyview cannot change rank by value.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  using lazyview::c;
  auto v = lazyview::from_blob<2, 3, 4>(p).squeeze(c<1>);
  (void)v;
}
