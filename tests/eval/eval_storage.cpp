// The memory of owning tensors (eval/storage.hpp): large blocks are whole pages (from 2 MiB,
// huge pages on 2 MiB boundaries, advised as such where the kernel has them), kept when freed
// for the next tensor of their size, and freed with the alignment they were allocated with (the
// sanitizer build reports a mismatch); contiguous() fills them with the oracle's values.
#define BOOST_TEST_MODULE eval_storage
#include <boost/test/unit_test.hpp>

#include <lazyview/lazyview.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace lv = lazyview;
using lv::index_t;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

/// The VmFlags of the mapping that holds p (/proc/self/smaps), or "" where there is none to read.
std::string vm_flags_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= address(p) && address(p) < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line + " ";
  }
  return "";
}

/// Whether this kernel has transparent huge pages at all (the advice is ignored without them).
bool kernel_has_thp() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  return std::getline(f, s) && s.find("[never]") == std::string::npos;
}

using bytes1 = lv::tensor<std::uint8_t, 1>;
bytes1 block_of(std::size_t n) {
  return bytes1(std::array<index_t, 1>{static_cast<index_t>(n)}, bytes1::uninitialized{});
}

template <class T, int R>
bool same_values(const lv::tensor<T, R>& a, const lv::tensor<T, R>& b) {
  return a.sizes() == b.sizes() && std::equal(a.data(), a.data() + a.numel(), b.data());
}

}  // namespace

BOOST_AUTO_TEST_CASE(capacity_and_alignment_follow_the_threshold) {
  constexpr std::size_t KiB = 1024;
  BOOST_TEST(lv::large_block_threshold == 128 * KiB);  // (the default LAZYVIEW_LARGE_BLOCK_BYTES)
  BOOST_TEST(lv::storage_capacity(100 * KiB + 1) == 100 * KiB + 1);
  BOOST_TEST(lv::storage_alignment(100 * KiB + 1) == 64u);
  BOOST_TEST(lv::storage_capacity(1000 * KiB) == 1000 * KiB);
  BOOST_TEST(lv::storage_capacity(1000 * KiB + 1) == 1004 * KiB);
  BOOST_TEST(lv::storage_alignment(1004 * KiB) == 4 * KiB);
  BOOST_TEST(lv::storage_capacity(2 * MiB - 1) == 2 * MiB);
  BOOST_TEST(lv::storage_alignment(2 * MiB) == lv::huge_page_bytes);
  BOOST_TEST(lv::storage_capacity(3 * MiB) == 4 * MiB);
  BOOST_TEST(lv::storage_alignment(4 * MiB) == lv::huge_page_bytes);
}

BOOST_AUTO_TEST_CASE(large_results_sit_on_advised_huge_pages) {
  lv::release_cached_storage();  // a new block, advised now
  // (1,16,256,256) fp32 FLUX pack: a 4 MiB result, two whole huge pages
  std::vector<float> x(16 * 256 * 256);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const auto in = lv::from_blob(x.data(), std::array<index_t, 4>{1, 16, 256, 256});
  const auto t = in.view(1, 16, 128, 2, 128, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, 128 * 128, 64).contiguous();
  BOOST_TEST(address(t.data()) % lv::huge_page_bytes == 0u);
  // values: element (0, h * 128 + w, c * 4 + i * 2 + j) is x[c][2h + i][2w + j]
  int wrong = 0;
  for (index_t h = 0; h < 128; ++h)
    for (index_t w = 0; w < 128; ++w)
      for (index_t c = 0; c < 16; ++c)
        for (index_t k = 0; k < 4; ++k) {
          const float want = x[static_cast<std::size_t>((c * 256 + 2 * h + k / 2) * 256 + 2 * w + k % 2)];
          wrong += t.data()[(h * 128 + w) * 64 + c * 4 + k] != want;
        }
  BOOST_TEST(wrong == 0);
#if defined(__linux__)
  const std::string flags = vm_flags_at(t.data());
  if (kernel_has_thp() && !flags.empty())
    BOOST_TEST(flags.find(" hg ") != std::string::npos, "VmFlags of the result's memory: " << flags);
  else
    BOOST_TEST_MESSAGE("no transparent huge pages or no smaps here: the advice is not checked");
#endif
}

BOOST_AUTO_TEST_CASE(small_results_are_neither_advised_nor_kept) {
  std::vector<float> x(64 * 64);
  const auto t = lv::from_blob(x.data(), std::array<index_t, 2>{64, 64}).t().contiguous();
  BOOST_TEST(address(t.data()) % 64 == 0u);
#if defined(__linux__)
  const std::string flags = vm_flags_at(t.data());
  if (!flags.empty()) BOOST_TEST(flags.find(" hg ") == std::string::npos, flags);
#endif
}

// Small blocks are aligned by hand inside larger ordinary ones (eval/storage.hpp): each must be
// 64-byte aligned, hold all of its bytes apart from every other block's, and go back whole (the
// wrong address given back makes glibc's free abort).
BOOST_AUTO_TEST_CASE(small_blocks_are_aligned_disjoint_and_freed_whole) {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 200; ++n) sizes.push_back(n);
  for (std::size_t n : {255u, 256u, 257u, 4095u, 4096u, 65537u}) sizes.push_back(n);
  sizes.push_back(lv::large_block_threshold - 1);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::pair<unsigned char*, std::size_t>> blocks;
    for (std::size_t n : sizes) {
      std::size_t cap = 0;
      auto* const p = static_cast<unsigned char*>(lv::allocate_storage(n, &cap));
      BOOST_TEST(cap == n);
      BOOST_TEST(address(p) % 64 == 0u, n << " bytes at " << static_cast<const void*>(p));
      blocks.emplace_back(p, cap);
    }
    auto pattern = [](std::size_t b, std::size_t k) { return static_cast<unsigned char>(b * 37 + k * 11 + 1); };
    for (std::size_t b = 0; b < blocks.size(); ++b)
      for (std::size_t k = 0; k < blocks[b].second; ++k) blocks[b].first[k] = pattern(b, k);
    std::size_t wrong = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      for (std::size_t k = 0; k < blocks[b].second; ++k) wrong += blocks[b].first[k] != pattern(b, k);
    BOOST_TEST(wrong == 0u);
    for (std::size_t b = round; b < blocks.size(); b += 2) lv::release_storage(blocks[b].first, blocks[b].second);
    for (std::size_t b = 1 - round; b < blocks.size(); b += 2) lv::release_storage(blocks[b].first, blocks[b].second);
  }
}

// contiguous(threads{n}) writes what contiguous() writes, with the work split as copy(...,
// threads{n}) splits it: past single_thread_bytes the pool runs the job on n threads.
BOOST_AUTO_TEST_CASE(contiguous_runs_on_the_threads_it_is_given) {
  auto& pool = lv::detail::thread_pool::instance();
  BOOST_TEST(pool.size() < 2u);  // no job in this module asked for 3 threads before this one
  // FLUX pack fp32 (2,16,128,128): 2 MiB, dynamic and static
  constexpr index_t B = 2, C = 16, H = 128, W = 128;
  std::vector<float> x(static_cast<std::size_t>(B * C * H * W));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  BOOST_TEST(static_cast<index_t>(x.size() * sizeof(float)) > lv::single_thread_bytes);
  const auto dyn = lv::from_blob(x.data(), std::array<index_t, 4>{B, C, H, W})
                       .view(B, C, H / 2, 2, W / 2, 2)
                       .permute(0, 2, 4, 1, 3, 5)
                       .reshape(B, (H / 2) * (W / 2), C * 4);
  const auto sta = lv::from_blob<B, C, H, W>(x.data())
                       .view<B, C, H / 2, 2, W / 2, 2>()
                       .permute<0, 2, 4, 1, 3, 5>()
                       .reshape<B, (H / 2) * (W / 2), C * 4>();
  const auto want = dyn.contiguous();
  // element (b, h * 64 + w, c * 4 + i * 2 + j) is x[b][c][2h + i][2w + j]
  int wrong = 0;
  for (index_t b = 0; b < B; ++b)
    for (index_t h = 0; h < H / 2; ++h)
      for (index_t c = 0; c < C; ++c)
        for (index_t k = 0; k < 4; ++k) {
          const index_t w = (h * 7 + c) % (W / 2);
          const float v = x[static_cast<std::size_t>(((b * C + c) * H + 2 * h + k / 2) * W + 2 * w + k % 2)];
          wrong += want.data()[(b * (H / 2) * (W / 2) + h * (W / 2) + w) * C * 4 + c * 4 + k] != v;
        }
  BOOST_TEST(wrong == 0);
  BOOST_TEST(same_values(sta.contiguous(lv::threads{3}), want));
  BOOST_TEST(pool.size() >= 2u, "static chain: threads{3} ran on " << pool.size() + 1 << " threads");
  BOOST_TEST(same_values(dyn.contiguous(lv::threads{4}), want));
  BOOST_TEST(pool.size() >= 3u, "dynamic chain: threads{4} ran on " << pool.size() + 1 << " threads");
  for (unsigned n : {1u, 2u, 0u}) {
    BOOST_TEST(same_values(dyn.contiguous(lv::threads{n}), want), "dynamic, threads{" << n << "}");
    BOOST_TEST(same_values(sta.contiguous(lv::threads{n}), want), "static, threads{" << n << "}");
  }
  // a chain that stays a view, and one under single_thread_bytes (runs on the caller alone)
  const auto t = lv::from_blob(x.data(), std::array<index_t, 2>{512, 1024}).t();
  BOOST_TEST(same_values(t.contiguous(lv::threads{3}), t.contiguous()));
  const auto small = lv::from_blob(x.data(), std::array<index_t, 3>{8, 16, 12}).permute(2, 0, 1);
  BOOST_TEST(same_values(small.contiguous(lv::threads{3}), small.contiguous()));
}

BOOST_AUTO_TEST_CASE(a_freed_block_serves_the_next_tensor_of_its_size) {
  lv::release_cached_storage();
  const void* first = nullptr;
  {
    auto a = block_of(6 * MiB);
    first = a.data();
    a.data()[6 * MiB - 1] = 1;
  }
  {
    auto b = block_of(6 * MiB - 100);  // the same 6 MiB block
    BOOST_TEST(static_cast<const void*>(b.data()) == first);
    b.data()[0] = 2;
  }
  {
    auto c = block_of(5 * MiB);  // rounded up to 6 MiB of huge pages: the kept block fits
    BOOST_TEST(static_cast<const void*>(c.data()) == first);
  }
  {
    auto d = block_of(3 * MiB);  // capacity 4 MiB: 6 MiB would waste half, so a new block
    BOOST_TEST(static_cast<const void*>(d.data()) != first);
    auto e = block_of(6 * MiB);  // while d lives, e takes the kept 6 MiB block
    BOOST_TEST(static_cast<const void*>(e.data()) == first);
  }
  {
    // under 2 MiB: 4 KiB pages, kept all the same (1 MiB: FLUX pack fp32 of (1,16,128,128))
    auto f = block_of(MiB);
    const void* const one = f.data();
    BOOST_TEST(address(one) % 4096 == 0u);
    f = block_of(1);  // f's block is freed here (and kept)
    auto g = block_of(MiB - 4096);
    BOOST_TEST(static_cast<const void*>(g.data()) == one);
  }
  lv::release_cached_storage();
}

BOOST_AUTO_TEST_CASE(the_cache_keeps_at_most_its_slots_and_bytes) {
  lv::release_cached_storage();
  const auto& cache = *lv::detail::block_cache::mine();
  std::vector<bytes1> live;
  for (int i = 0; i < lv::large_block_cache_slots + 2; ++i) live.push_back(block_of(4 * MiB));
  live.push_back(block_of(64 * 1024));  // under the threshold: never kept
  live.clear();
  BOOST_TEST(cache.kept() == lv::large_block_cache_slots);
  BOOST_TEST(cache.kept_bytes() == static_cast<std::size_t>(lv::large_block_cache_slots) * 4 * MiB);
  {
    std::vector<bytes1> again;  // the kept blocks serve the next ones
    for (int i = 0; i < lv::large_block_cache_slots; ++i) again.push_back(block_of(4 * MiB));
    BOOST_TEST(cache.kept() == 0);
  }
  BOOST_TEST(cache.kept() == lv::large_block_cache_slots);
  lv::release_cached_storage();
  BOOST_TEST(cache.kept() == 0);
  BOOST_TEST(cache.kept_bytes() == 0u);
  // four of 80 MiB (never touched, so never backed): only three fit in 256 MiB; one over
  // 256 MiB alone is not kept
  static_assert(lv::large_block_cache_bytes == 256 * MiB);
  for (int i = 0; i < 4; ++i) live.push_back(block_of(80 * MiB));
  live.clear();
  BOOST_TEST(cache.kept() == 3);
  BOOST_TEST(cache.kept_bytes() == 240 * MiB);
  live.push_back(block_of(258 * MiB));
  live.clear();
  BOOST_TEST(cache.kept() == 3);
  lv::release_cached_storage();
}

BOOST_AUTO_TEST_CASE(copies_moves_and_other_threads_keep_each_block_once) {
  // each tensor frees its own block once, with the alignment it was given: copy, move,
  // assignment, a block freed by another thread (kept by that thread until it ends)
  bytes1 a(std::array<index_t, 1>{index_t{3} << 20});
  a.data()[12345] = 7;
  bytes1 b = a;
  BOOST_TEST(address(b.data()) % lv::huge_page_bytes == 0u);
  BOOST_TEST(b.data()[12345] == 7);
  bytes1 c = std::move(a);
  BOOST_TEST(c.data()[12345] == 7);
  bytes1 small(std::array<index_t, 1>{100});
  small = b;  // a small block replaced by a large one
  b = bytes1(std::array<index_t, 1>{100});  // and the other way round
  BOOST_TEST(small.data()[12345] == 7);
  BOOST_TEST(b.numel() == 100);
  std::thread([moved = std::move(c)]() mutable { bytes1 gone = std::move(moved); }).join();
  std::thread([] {
    auto t = block_of(8 * MiB);
    t.data()[0] = 1;
  }).join();
  // one that outlives main's cache: freed at exit, after the thread's cache is gone
  static bytes1 last = block_of(4 * MiB);
  last.data()[0] = 3;
}
