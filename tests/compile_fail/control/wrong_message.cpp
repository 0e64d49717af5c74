// expect: this text appears in no diagnostic
// Harness self-test (registered WILL_FAIL): the compile fails, but with a message the regex above
// does not match, so the harness must report a failure.
#include <lazyview/lazyview.hpp>

void compile_fail_control(float* p) {
  auto v = lazyview::from_blob<2, 3, 4>(p).view<5, 5>();
  (void)v;
}
