// expect: lazyview: only one dimension can be inferred; write -1 at most once
// expect: diag::two_inferred.*op_view.*sizes<2, 3, 4>.*sizes<-1, -1>
// view<-1, -1>(): two sizes to infer.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).view<-1, -1>();
  (void)v;
}
