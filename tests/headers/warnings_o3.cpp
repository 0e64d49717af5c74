// Chains of every op, built from dynamic values, compile without warnings at -O3 -march=native
// -Wall -Wextra (tests/headers/CMakeLists.txt adds -Werror where no sanitizer is on). g++ 12
// there inlines a dynamic node's check (fold/fold.hpp's shown_after) and followed the fold's
// level code into a state with no levels: -Wstringop-overflow from a chain with a slice, and
// -Warray-bounds from a permute, 40 warnings for this file, in users' builds. The values are
// checked too: each dynamic chain shows what the same chain with static values folds to at
// compile time.
// One copy() compiles the whole engine here (header-only, every element size's kernels), so its
// code is held to the same flags: g++ 12 flagged the AVX-512 tiles of 16-byte elements with 100
// -Wmaybe-uninitialized warnings (eval/wide_micro.hpp's shuffle_lanes says why).
#include <lazyview/lazyview.hpp>

#include <cstdio>
#include <cstdlib>

namespace {

using lazyview::c;
using lazyview::index_t;

int failures = 0;

/// Sizes, strides, view flag and contiguity of a (dynamic) and s (static) agree.
template <class A, class S>
void same(const char* what, const A& a, const S& s) {
  static_assert(A::rank == S::rank);
  bool ok = a.is_view() == s.is_view() && a.is_contiguous() == s.is_contiguous();
  for (int i = 0; i < A::rank; ++i)
    ok = ok && a.sizes()[i] == s.sizes()[i] && a.strides()[i] == s.strides()[i];
  if (!ok) {
    std::printf("warnings_o3: %s: the dynamic chain differs from the static one\n", what);
    ++failures;
  }
}

/// What fold() of a (dynamic) gives, called directly as users do, agrees with s's sizes and
/// strides. (g++ 12 warned -Warray-bounds there from the 5-op chain, through unsqueeze's insert
/// into the top level, where sizes() of the same chain did not.)
template <class A, class S>
void same_fold(const char* what, const A& a, const S& s) {
  const auto f = lazyview::fold(a);
  bool ok = f.sizes.n == S::rank && f.view == s.is_view();
  for (int i = 0; ok && i < S::rank; ++i) ok = f.sizes[i].v == s.sizes()[i] && f.strides[i].v == s.strides()[i];
  if (!ok) {
    std::printf("warnings_o3: %s: fold() of the dynamic chain differs from the static chain\n", what);
    ++failures;
  }
}

/// copy() of (n,32,4).permute(1,0,2) fp32 (16-byte elements, wide tiles where the target has
/// them) into a destination view, on 2 threads, agrees with an index loop.
void copy_agrees(index_t n) {
  static float src[64 * 32 * 4], dst[32 * 64 * 4];
  for (index_t i = 0; i < n * 32 * 4; ++i) src[i] = static_cast<float>(i);
  lazyview::copy(lazyview::from_blob(src, {n, 32, 4}).permute(1, 0, 2), lazyview::from_blob(dst, {32, n, 4}),
                 lazyview::threads{2});
  for (index_t j = 0; j < 32; ++j)
    for (index_t i = 0; i < n; ++i)
      for (index_t k = 0; k < 4; ++k)
        if (dst[(j * n + i) * 4 + k] != src[(i * 32 + j) * 4 + k]) {
          std::printf("warnings_o3: copy of (%ld,32,4).permute(1,0,2) differs at (%ld,%ld,%ld)\n",
                      static_cast<long>(n), static_cast<long>(j), static_cast<long>(i), static_cast<long>(k));
          ++failures;
          return;
        }
}

/// A value the optimiser cannot see through, so that every check runs at run time.
index_t dyn(index_t v) {
  volatile index_t x = v;
  return x;
}

}  // namespace

int main() {
  static float buf[2 * 16 * 8 * 6];
  const index_t B = dyn(2), C = dyn(16), H = dyn(8), W = dyn(6), zero = dyn(0), one = dyn(1);
  auto d = lazyview::from_blob(buf, {B, C, H, W});
  auto s = lazyview::from_blob<2, 16, 8, 6>(buf);

  const auto five_d =
      d.view(B, C, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).select(zero, zero).slice(zero, zero, 3, 2).unsqueeze(one);
  const auto five_s =
      s.view<2, 16, 4, 2, 3, 2>().permute<0, 2, 4, 1, 3, 5>().select(c<0>, c<0>).slice(c<0>, c<0>, c<3>, c<2>).unsqueeze(c<1>);
  same("view.permute.select.slice.unsqueeze", five_d, five_s);
  same_fold("fold(view.permute.select.slice.unsqueeze)", five_d, five_s);
  same("narrow.squeeze.transpose.unsqueeze.expand",
       d.narrow(one, zero, one).squeeze(1).transpose(zero, 2).unsqueeze(one).expand(W, 5, H, B),
       s.narrow(c<1>, c<0>, c<1>).squeeze(c<1>).transpose(c<0>, c<2>).unsqueeze(c<1>).expand(c<6>, c<5>, c<8>, c<2>));
  same("diagonal.unfold.movedim",
       d.diagonal(one, 2, 3).unfold(2, 2, one).movedim(3, zero),
       s.diagonal(c<1>, c<2>, c<3>).unfold(c<2>, c<2>, c<1>).movedim(c<3>, c<0>));
  same("flatten.unflatten.t",
       d.flatten(c<2>, c<3>).unflatten(2, {12, -1}).select(zero, one).flatten(c<1>, c<2>).t(),
       s.flatten(c<2>, c<3>).unflatten(c<2>, {12, -1}).select(c<0>, c<1>).flatten(c<1>, c<2>).t());
  same("permute.reshape.slice.permute (copying reshape)",
       d.permute(0, 2, 3, 1).reshape(B, H * W, C).slice(1, one, 40, 3).permute(2, 0, 1),
       s.permute<0, 2, 3, 1>().reshape<2, 48, 16>().slice(c<1>, c<1>, c<40>, c<3>).permute<2, 0, 1>());
  copy_agrees(dyn(64));
  if (failures == 0) std::printf("warnings_o3: 5 chains, a fold and a copy agree\n");
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
