// Compile-time benchmark: FLUX pack and unpack with Eigen Tensor (RowMajor), sizes known at compile
// time ("static") and at run time ("dynamic"), reshape/shuffle/reshape evaluated into a new
// tensor through a TensorMap. Compiled (not linked) by measure.sh.
#include <unsupported/Eigen/CXX11/Tensor>

#include <array>
#include <cstdint>

using Eigen::Index;
template <int N>
using RM = Eigen::Tensor<float, N, Eigen::RowMajor>;
template <int N>
using CMap = Eigen::TensorMap<Eigen::Tensor<const float, N, Eigen::RowMajor>>;
template <int N>
using Map = Eigen::TensorMap<RM<N>>;

RM<3> pack_static(const float* x) {
  CMap<4> in(x, 1, 16, 128, 128);
  RM<3> out(1, 64 * 64, 16 * 4);
  Map<3>(out.data(), 1, 64 * 64, 16 * 4) = in.reshape(Eigen::DSizes<Index, 6>(1, 16, 64, 2, 64, 2))
                                               .shuffle(std::array<int, 6>{0, 2, 4, 1, 3, 5})
                                               .reshape(Eigen::DSizes<Index, 3>(1, 64 * 64, 16 * 4));
  return out;
}

RM<4> unpack_static(const float* p) {
  CMap<3> in(p, 1, 64 * 64, 16 * 4);
  RM<4> out(1, 16, 128, 128);
  Map<4>(out.data(), 1, 16, 128, 128) = in.reshape(Eigen::DSizes<Index, 6>(1, 64, 64, 16, 2, 2))
                                            .shuffle(std::array<int, 6>{0, 3, 1, 4, 2, 5})
                                            .reshape(Eigen::DSizes<Index, 4>(1, 16, 128, 128));
  return out;
}

RM<3> pack_dynamic(const float* x, std::int64_t B, std::int64_t C, std::int64_t H, std::int64_t W) {
  CMap<4> in(x, B, C, H, W);
  RM<3> out(B, (H / 2) * (W / 2), C * 4);
  Map<3>(out.data(), B, (H / 2) * (W / 2), C * 4) =
      in.reshape(Eigen::DSizes<Index, 6>(B, C, H / 2, 2, W / 2, 2))
          .shuffle(std::array<int, 6>{0, 2, 4, 1, 3, 5})
          .reshape(Eigen::DSizes<Index, 3>(B, (H / 2) * (W / 2), C * 4));
  return out;
}

RM<4> unpack_dynamic(const float* p, std::int64_t B, std::int64_t C, std::int64_t H, std::int64_t W) {
  CMap<3> in(p, B, (H / 2) * (W / 2), C * 4);
  RM<4> out(B, C, H, W);
  Map<4>(out.data(), B, C, H, W) = in.reshape(Eigen::DSizes<Index, 6>(B, H / 2, W / 2, C, 2, 2))
                                       .shuffle(std::array<int, 6>{0, 3, 1, 4, 2, 5})
                                       .reshape(Eigen::DSizes<Index, 4>(B, C, H, W));
  return out;
}
