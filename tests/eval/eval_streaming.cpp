// Copies past the streaming-store threshold (16 MiB of destination): the transpose kernel with
// non-temporal stores and the long-run copy, against a reference loop. Also copy() into an
// owning tensor passed as a plain lvalue.
#include <boost/test/unit_test.hpp>
#include <lazyview/lazyview.hpp>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

using namespace lazyview;

namespace {

/// (R, C) transposed into a fresh tensor past the threshold: the buffered streaming transpose,
/// with a last block of A narrower than the rest and a B count that is no multiple of a block.
template <class T>
void streaming_transpose(index_t R, index_t C) {
  std::vector<T> a(static_cast<std::size_t>(R * C));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>(i * 2654435761u);
  tensor<T, 2> t({C, R});
  for (unsigned th : {1u, 2u}) {
    std::fill_n(t.data(), R * C, T{});
    copy(from_blob(a.data(), {R, C}).t(), t, threads{th});
    std::size_t bad = 0;
    for (index_t i = 0; i < C; ++i)
      for (index_t j = 0; j < R; ++j) bad += t.data()[i * R + j] != a[static_cast<std::size_t>(j * C + i)];
    BOOST_TEST(bad == 0u, sizeof(T) << "-byte (" << R << "," << C << ").t(), threads " << th);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(streaming_transpose_element_sizes) {
  streaming_transpose<std::uint8_t>(4096, 4099);
  streaming_transpose<std::uint16_t>(2000, 4203);  // rows of 4000 bytes: 63 blocks of 32 + 16
  streaming_transpose<std::uint32_t>(1000, 4197);
  streaming_transpose<std::uint64_t>(1000, 2101);  // 63 blocks of 16 wide, the last 8
}

BOOST_AUTO_TEST_CASE(streaming_transpose_and_pack) {
  const index_t R = 1024, C = 4100;  // 16.4 MB of fp32
  std::vector<float> a(static_cast<std::size_t>(R * C));
  std::iota(a.begin(), a.end(), 0.f);
  tensor<float, 2> t({C, R});
  for (unsigned th : {1u, 2u}) {
    copy(from_blob(a.data(), {R, C}).t(), t, threads{th});
    std::size_t bad = 0;
    for (index_t i = 0; i < C; ++i)
      for (index_t j = 0; j < R; ++j) bad += t.data()[i * R + j] != a[static_cast<std::size_t>(j * C + i)];
    BOOST_TEST(bad == 0u);
  }
  // FLUX pack at (2,16,256,256) fp32: 8 MiB in, 8 MiB out -> with bf16-sized twins below.
  const index_t B = 4, Ch = 16, H = 256, W = 256;
  std::vector<float> x(static_cast<std::size_t>(B * Ch * H * W));
  std::iota(x.begin(), x.end(), 0.f);
  auto pack = from_blob(x.data(), {B, Ch, H, W}).view(B, Ch, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, (H / 2) * (W / 2), Ch * 4);
  tensor<float, 3> y({B, (H / 2) * (W / 2), Ch * 4});
  copy(pack, y, threads{2});
  std::size_t bad = 0;
  for (index_t b = 0; b < B; ++b)
    for (index_t n = 0; n < (H / 2) * (W / 2); ++n)
      for (index_t k = 0; k < Ch * 4; ++k) {
        const index_t ih = n / (W / 2), iw = n % (W / 2), c = k / 4, ph = (k / 2) % 2, pw = k % 2;
        bad += y.data()[(b * (H / 2) * (W / 2) + n) * Ch * 4 + k] !=
               x[static_cast<std::size_t>(((b * Ch + c) * H + ih * 2 + ph) * W + iw * 2 + pw)];
      }
  BOOST_TEST(bad == 0u);
  // A long contiguous run (a plain copy) past the threshold.
  tensor<float, 1> flat({B * Ch * H * W});
  copy(from_blob(x.data(), {B * Ch * H * W}), flat);
  BOOST_TEST(std::equal(x.begin(), x.end(), flat.data()));
}
