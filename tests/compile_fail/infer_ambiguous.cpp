// expect: lazyview: cannot infer -1 when another size is 0; give every size explicitly
// expect: diag::infer_ambiguous.*op_view.*sizes<0, 4>.*sizes<-1, 0>
// view<-1, 0>() of an empty static (0,4) input: any value fits the -1.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<0, 4>(p).view<-1, 0>();
  (void)v;
}
