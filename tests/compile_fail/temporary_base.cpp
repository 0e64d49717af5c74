// expect: lazyview: a lazy chain over a temporary lazyview::tensor would dangle; bind the tensor to a variable first
// expect: diag::temporary_base
// contiguous() returns an owning tensor; a view of that temporary would outlive it.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3>(p).t().contiguous().view(6);
  (void)v;
}
