// expect: lazyview: invalid shape dimension \(negative and not -1\); sizes must be >= 0, or -1 once
// expect: diag::invalid_size.*op_view.*sizes<2, 3, 4>.*sizes<-2
// view<-2, -12>(): -2 is not a size (the product, 24, matches, so only the sign is wrong).
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).view<-2, -12>();
  (void)v;
}
