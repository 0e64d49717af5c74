// Built with LAZYVIEW_SEPARATE_ENGINE and no LAZYVIEW_ENGINE_IMPLEMENTATION: the copies below
// must leave the engine to the one TU that defines it (separate_engine.cmake reads this TU's
// symbols). A dynamic and a static FLUX pack, both past the nest's and the static nest's sizes.
#include <lazyview/lazyview.hpp>

namespace lv = lazyview;

void separate_pack_dynamic(const float* x, float* y, lv::index_t B, lv::index_t C, lv::index_t H, lv::index_t W) {
  auto src = lv::from_blob(x, {B, C, H, W});
  auto dst = lv::from_blob(y, {B, (H / 2) * (W / 2), C * 4});
  lv::copy(src.view(B, C, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5), dst.view(B, H / 2, W / 2, C, 2, 2));
}

void separate_pack_static(const float* x, float* y) {
  auto src = lv::from_blob<1, 16, 64, 64>(x).view<1, 16, 32, 2, 32, 2>().permute<0, 2, 4, 1, 3, 5>();
  lv::copy(src, lv::from_blob<1, 32, 32, 16, 2, 2>(y));
}
