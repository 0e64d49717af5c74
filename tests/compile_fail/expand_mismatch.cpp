// expect: lazyview: expand\(\): the expanded size must match the existing size at a non-singleton dimension; only size-1 dims can grow
// expect: diag::expand_mismatch.*op_expand.*sizes<2, 3, 4>.*sizes<2, 5, 4>
// expand(2, 5, 4) of a static (2,3,4) input: dim 1 has size 3, not 1, so it cannot become 5.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  using lazyview::c;
  auto v = lazyview::from_blob<2, 3, 4>(p).expand(c<2>, c<5>, c<4>);
  (void)v;
}
