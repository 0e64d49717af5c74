// Compile-time benchmark: FLUX pack and unpack with lazyview, static and dynamic extents,
// evaluated with contiguous(). Compiled (not linked) by measure.sh.
#include <lazyview/lazyview.hpp>

using lazyview::index_t;

lazyview::tensor<float, 3> pack_static(const float* x) {
  return lazyview::from_blob<1, 16, 128, 128>(x)
      .view<1, 16, 64, 2, 64, 2>()
      .permute<0, 2, 4, 1, 3, 5>()
      .reshape<1, 64 * 64, 16 * 4>()
      .contiguous();
}

lazyview::tensor<float, 4> unpack_static(const float* p) {
  return lazyview::from_blob<1, 64 * 64, 16 * 4>(p)
      .view<1, 64, 64, 16, 2, 2>()
      .permute<0, 3, 1, 4, 2, 5>()
      .reshape<1, 16, 128, 128>()
      .contiguous();
}

lazyview::tensor<float, 3> pack_dynamic(const float* x, index_t B, index_t C, index_t H, index_t W) {
  return lazyview::from_blob(x, {B, C, H, W})
      .view(B, C, H / 2, 2, W / 2, 2)
      .permute(0, 2, 4, 1, 3, 5)
      .reshape(B, (H / 2) * (W / 2), C * 4)
      .contiguous();
}

lazyview::tensor<float, 4> unpack_dynamic(const float* p, index_t B, index_t C, index_t H, index_t W) {
  return lazyview::from_blob(p, {B, (H / 2) * (W / 2), C * 4})
      .view(B, H / 2, W / 2, C, 2, 2)
      .permute(0, 3, 1, 4, 2, 5)
      .reshape(B, C, H, W)
      .contiguous();
}
