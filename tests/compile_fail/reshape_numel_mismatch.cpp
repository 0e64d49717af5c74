// expect: lazyview: the requested sizes do not multiply to the input's number of elements; fix the sizes or write -1 for one of them
// expect: diag::numel_mismatch.*op_reshape.*sizes<2, 3, 4>.*sizes<7, 3>
// reshape<7, 3>() of a static (2,3,4) input: 21 elements requested, 24 present.
#include <lazyview/lazyview.hpp>

void compile_fail_case(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).reshape<7, 3>();
  (void)v;
}
