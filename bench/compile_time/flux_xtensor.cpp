// Compile-time benchmark: FLUX pack and unpack with xtensor, sizes known at compile time
// ("static") and at run time ("dynamic"): reshape_view/transpose/reshape_view evaluated into a new
// xtensor. Compiled (not linked) by measure.sh.
#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xtensor.hpp>

#include <array>
#include <cstddef>

using S = std::size_t;

xt::xtensor<float, 3> pack_static(const float* x) {
  auto in = xt::adapt(x, S{1 * 16 * 128 * 128}, xt::no_ownership(), std::array<S, 4>{1, 16, 128, 128});
  return xt::reshape_view(xt::transpose(xt::reshape_view(in, std::array<S, 6>{1, 16, 64, 2, 64, 2}),
                                        std::array<S, 6>{0, 2, 4, 1, 3, 5}),
                          std::array<S, 3>{1, 64 * 64, 16 * 4});
}

xt::xtensor<float, 4> unpack_static(const float* p) {
  auto in = xt::adapt(p, S{1 * 16 * 128 * 128}, xt::no_ownership(), std::array<S, 3>{1, 64 * 64, 16 * 4});
  return xt::reshape_view(xt::transpose(xt::reshape_view(in, std::array<S, 6>{1, 64, 64, 16, 2, 2}),
                                        std::array<S, 6>{0, 3, 1, 4, 2, 5}),
                          std::array<S, 4>{1, 16, 128, 128});
}

xt::xtensor<float, 3> pack_dynamic(const float* x, S B, S C, S H, S W) {
  auto in = xt::adapt(x, B * C * H * W, xt::no_ownership(), std::array<S, 4>{B, C, H, W});
  return xt::reshape_view(xt::transpose(xt::reshape_view(in, std::array<S, 6>{B, C, H / 2, 2, W / 2, 2}),
                                        std::array<S, 6>{0, 2, 4, 1, 3, 5}),
                          std::array<S, 3>{B, (H / 2) * (W / 2), C * 4});
}

xt::xtensor<float, 4> unpack_dynamic(const float* p, S B, S C, S H, S W) {
  auto in = xt::adapt(p, B * C * H * W, xt::no_ownership(), std::array<S, 3>{B, (H / 2) * (W / 2), C * 4});
  return xt::reshape_view(xt::transpose(xt::reshape_view(in, std::array<S, 6>{B, H / 2, W / 2, C, 2, 2}),
                                        std::array<S, 6>{0, 3, 1, 4, 2, 5}),
                          std::array<S, 4>{B, C, H, W});
}
