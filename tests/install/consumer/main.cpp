// FLUX _pack_latents on a small latent through the installed lazyview, checked against a loop.
#include <lazyview/lazyview.hpp>

#include <cstdio>
#include <vector>

int main() {
  const lazyview::index_t B = 2, C = 3, H = 4, W = 6;
  std::vector<float> x(static_cast<std::size_t>(B * C * H * W));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);

  auto packed = lazyview::from_blob(x.data(), {B, C, H, W})
                    .view(B, C, H / 2, 2, W / 2, 2)
                    .permute(0, 2, 4, 1, 3, 5)
                    .reshape(B, (H / 2) * (W / 2), C * 4)
                    .contiguous();

  // out[b][ih*(W/2)+iw][c*4+ph*2+pw] = x[b][c][2*ih+ph][2*iw+pw]
  long bad = 0;
  const float* out = packed.data();
  for (lazyview::index_t b = 0; b < B; ++b)
    for (lazyview::index_t ih = 0; ih < H / 2; ++ih)
      for (lazyview::index_t iw = 0; iw < W / 2; ++iw)
        for (lazyview::index_t c = 0; c < C; ++c)
          for (lazyview::index_t ph = 0; ph < 2; ++ph)
            for (lazyview::index_t pw = 0; pw < 2; ++pw) {
              const auto n = ih * (W / 2) + iw, k = c * 4 + ph * 2 + pw;
              const float want = x[static_cast<std::size_t>(((b * C + c) * H + 2 * ih + ph) * W + 2 * iw + pw)];
              if (out[(b * (H / 2) * (W / 2) + n) * C * 4 + k] != want) ++bad;
            }
  if (bad != 0) {
    std::printf("lazyview consumer: %ld mismatches in the FLUX pack\n", bad);
    return 1;
  }
  std::printf("lazyview consumer: FLUX pack of (%ld,%ld,%ld,%ld) matches the loop\n",
              static_cast<long>(B), static_cast<long>(C), static_cast<long>(H), static_cast<long>(W));
  return 0;
}
