// expect: lazyview: the requested sizes do not multiply to the input's number of elements; fix the sizes or write -1 for one of them
// expect: diag::numel_mismatch.*op_view.*sizes<2, 3, 4>.*sizes<6, 5>
// view(c<6>, c<5>) with c<N> arguments: every value is static, so the mismatch is a compile error.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  using lazyview::c;
  auto v = lazyview::from_blob<2, 3, 4>(p).view(c<6>, c<5>);
  (void)v;
}
