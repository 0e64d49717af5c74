// Fold cost of chains that stay views (no data moves). Names:
//   fold/<dynamic|static>/<n>op/fold        lazyview::fold(e) of a chain built once
//   fold/<dynamic|static>/<n>op/build_fold  building the chain (each dynamic op checks eagerly:
//                                           its rule on its child's kept state, fold/shown.hpp)
//                                           and folding it, every iteration
// Dynamic sizes are laundered through DoNotOptimize every iteration so nothing is precomputed.
// Expected: nanoseconds for dynamic chains, ~0 for static ones (a reference to a constexpr fold).
#include <lazyview/lazyview.hpp>

#include <stdexcept>

#include "common.hpp"

namespace lvb {

namespace {

using lazyview::c;

float g_storage[2 * 16 * 128 * 128];

// The chains (all views of a (2,16,128,128) tensor):
//   3 ops: view(B, C, H*W).transpose(1, 2).narrow(1, 0, 1024)
//   4 ops: view(B, C, H/2, 2, W/2, 2).permute(0, 2, 4, 1, 3, 5).select(0, 0).slice(0, 0, 32, 2)
//   5 ops: the 4-op chain, then unsqueeze(1)
auto dyn3(const float* p, index_t B, index_t C, index_t H, index_t W) {
  return lazyview::from_blob(p, {B, C, H, W}).view(B, C, H * W).transpose(1, 2).narrow(1, 0, 1024);
}
auto dyn4(const float* p, index_t B, index_t C, index_t H, index_t W) {
  return lazyview::from_blob(p, {B, C, H, W})
      .view(B, C, H / 2, 2, W / 2, 2)
      .permute(0, 2, 4, 1, 3, 5)
      .select(0, 0)
      .slice(0, 0, 32, 2);
}
auto dyn5(const float* p, index_t B, index_t C, index_t H, index_t W) { return dyn4(p, B, C, H, W).unsqueeze(1); }

auto sta3(const float* p) {
  return lazyview::from_blob<2, 16, 128, 128>(p).view<2, 16, 128 * 128>().transpose(c<1>, c<2>).narrow(c<1>, c<0>,
                                                                                                      c<1024>);
}
auto sta4(const float* p) {
  return lazyview::from_blob<2, 16, 128, 128>(p)
      .view<2, 16, 64, 2, 64, 2>()
      .permute<0, 2, 4, 1, 3, 5>()
      .select(c<0>, c<0>)
      .slice(c<0>, c<0>, c<32>, c<2>);
}
auto sta5(const float* p) { return sta4(p).unsqueeze(c<1>); }

template <class E>
void require_view(benchmark::State& st, const E& e) {
  if (!e.is_view()) st.SkipWithError("chain is not a view");
}

template <class MakeDyn>
void dyn_fold(benchmark::State& st, MakeDyn make) {
  index_t B = 2, C = 16, H = 128, W = 128;
  benchmark::DoNotOptimize(B), benchmark::DoNotOptimize(C), benchmark::DoNotOptimize(H), benchmark::DoNotOptimize(W);
  auto e = make(g_storage, B, C, H, W);
  require_view(st, e);
  for (auto _ : st) {
    benchmark::DoNotOptimize(e);  // e may have changed: the fold cannot be hoisted
    auto s = lazyview::fold(e);
    benchmark::DoNotOptimize(s);
  }
}

template <class MakeDyn>
void dyn_build_fold(benchmark::State& st, MakeDyn make) {
  require_view(st, make(g_storage, 2, 16, 128, 128));
  const float* p = g_storage;
  for (auto _ : st) {
    index_t B = 2, C = 16, H = 128, W = 128;
    benchmark::DoNotOptimize(B), benchmark::DoNotOptimize(C), benchmark::DoNotOptimize(H),
        benchmark::DoNotOptimize(W), benchmark::DoNotOptimize(p);
    auto e = make(p, B, C, H, W);
    auto s = lazyview::fold(e);
    benchmark::DoNotOptimize(s);
  }
}

template <class MakeSta>
void sta_fold(benchmark::State& st, MakeSta make) {
  auto e = make(g_storage);
  require_view(st, e);
  for (auto _ : st) {
    benchmark::DoNotOptimize(e);
    decltype(auto) s = lazyview::fold(e);  // a const reference to the constexpr fold
    const void* ps = &s;                   // escape its address: copying 3 KB would be the cost
    benchmark::DoNotOptimize(ps);
  }
}

template <class MakeSta>
void sta_build_fold(benchmark::State& st, MakeSta make) {
  require_view(st, make(g_storage));
  const float* p = g_storage;
  for (auto _ : st) {
    benchmark::DoNotOptimize(p);
    auto e = make(p);
    benchmark::DoNotOptimize(e);
    decltype(auto) s = lazyview::fold(e);
    const void* ps = &s;
    benchmark::DoNotOptimize(ps);
  }
}

}  // namespace

void register_fold_benchmarks() {
  auto add = [](const char* name, void (*f)(benchmark::State&)) {
    benchmark::RegisterBenchmark(name, f)->Unit(benchmark::kNanosecond);
  };
  add("fold/dynamic/3op/fold", [](benchmark::State& st) { dyn_fold(st, dyn3); });
  add("fold/dynamic/3op/build_fold", [](benchmark::State& st) { dyn_build_fold(st, dyn3); });
  add("fold/dynamic/4op/fold", [](benchmark::State& st) { dyn_fold(st, dyn4); });
  add("fold/dynamic/4op/build_fold", [](benchmark::State& st) { dyn_build_fold(st, dyn4); });
  add("fold/dynamic/5op/fold", [](benchmark::State& st) { dyn_fold(st, dyn5); });
  add("fold/dynamic/5op/build_fold", [](benchmark::State& st) { dyn_build_fold(st, dyn5); });
  add("fold/static/3op/fold", [](benchmark::State& st) { sta_fold(st, sta3); });
  add("fold/static/3op/build_fold", [](benchmark::State& st) { sta_build_fold(st, sta3); });
  add("fold/static/4op/fold", [](benchmark::State& st) { sta_fold(st, sta4); });
  add("fold/static/4op/build_fold", [](benchmark::State& st) { sta_build_fold(st, sta4); });
  add("fold/static/5op/fold", [](benchmark::State& st) { sta_fold(st, sta5); });
  add("fold/static/5op/build_fold", [](benchmark::State& st) { sta_build_fold(st, sta5); });
}

}  // namespace lvb
