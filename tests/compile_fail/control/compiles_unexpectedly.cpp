// expect: lazyview: the requested sizes do not multiply to the input's number of elements
// Harness self-test (registered WILL_FAIL): this file compiles, so the harness must report a
// failure although the file carries an expect line.
#include <lazyview/lazyview.hpp>

void compile_fail_control(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).view<4, 6>();
  (void)v;
}
