#pragma once
// Shared pieces of the lazyview benchmark suite: workloads, the implementation interface, aligned
// buffers, a small persistent thread pool for the baselines, and the reference loops.
//
// Every workload copies a view of a contiguous tensor into a contiguous output, written the way
// PyTorch code writes it: a permute-copy x.view(V).permute(P).reshape(O) (or x.permute(P) for the
// plain permutations), or a strided gather x.select(d, i) / x.slice(d, start, end, step) (the slices
// family); or, the mirror of a gather, copies a contiguous tensor into such a view of a larger
// contiguous destination (a strided scatter, the scatters family: dst.select(d, i) = x, elements
// outside the view untouched). Each implementation gets the same source bytes and the same
// destination buffer; bytes processed = bytes read + bytes written, where both count only the
// elements actually moved: 2 x workload::moved_bytes() (a gather reads a fraction of its source, a
// scatter writes a fraction of its destination, a permutation reads and writes all of both).
#include <benchmark/benchmark.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace lvb {

using index_t = std::int64_t;

/// One benchmark case (the thread count is added at registration).
struct workload {
  enum kind_t { chain, permute_only, strided_gather, strided_scatter };
  /// flux_pack, flux_unpack, small, agents, transpose, perm, runs, layout, vector, slices, scatters
  std::string family;
  /// fp32, bf16 (uint16_t storage), u8 (uint8_t storage) or fp64 (double; the scatters family only)
  std::string dtype;
  std::string shape;   ///< name part, e.g. 1x16x128x128
  int esize = 4;       ///< bytes per element
  kind_t kind = chain;
  /// contiguous input sizes; for strided_scatter the sizes of the (larger, contiguous) destination buffer
  std::vector<index_t> in;
  /// sizes after view (== in for permute_only; empty for strided_gather and strided_scatter)
  std::vector<index_t> view;
  std::vector<int> perm;  ///< permute dims (rank == view.size(); empty for strided_gather and strided_scatter)
  /// final sizes (reshape target; permuted sizes for permute_only; the view's sizes for strided_gather;
  /// for strided_scatter the view's sizes, which are the contiguous source's)
  std::vector<index_t> out;
  /// kind == strided_gather: the view is x.select(dim, start) (select: dim dropped) or x.slice(dim, start,
  /// end, step) of the contiguous input (0 <= start < end <= in[dim], step >= 1; no clamping needed).
  /// kind == strided_scatter: the same view of the destination buffer of sizes `in`, written from the source.
  struct gather_op {
    int dim = 0;
    bool select = false;
    index_t start = 0, end = 0, step = 1;
  } gather;
  std::array<index_t, 4> flux{};  ///< (B,C,H,W) for the FLUX chains (static dispatch)
  bool pack = false;              ///< a FLUX chain: pack (else unpack)
  bool large = false;         ///< fewer/shorter repetitions
  /// Where the destination starts past a line boundary (bytes): 16 for the vector family, as
  /// glibc places a large allocation (a std::vector); the streaming copy keeps a line start.
  std::size_t dst_offset = 0;

  static index_t numel_of(const std::vector<index_t>& sizes) {
    index_t n = 1;
    for (index_t s : sizes) n *= s;
    return n;
  }
  /// Elements of `in`: the source's; for strided_scatter the destination buffer's.
  index_t numel() const { return numel_of(in); }
  /// Elements of `out`: the destination's (fewer than the source's for a gather); for strided_scatter
  /// the source's (fewer than the destination buffer's). Always the elements moved.
  index_t out_numel() const { return numel_of(out); }
  /// Bytes of the source buffer (what it must hold): `in`'s, or `out`'s for a scatter.
  std::size_t src_bytes() const {
    return static_cast<std::size_t>(kind == strided_scatter ? out_numel() : numel()) * static_cast<std::size_t>(esize);
  }
  /// Bytes of the destination buffer (what it must hold and, for a scatter, what must be checked): `out`'s,
  /// or `in`'s for a scatter (of which only the view's moved_bytes() are written).
  std::size_t dst_bytes() const {
    return static_cast<std::size_t>(kind == strided_scatter ? numel() : out_numel()) * static_cast<std::size_t>(esize);
  }
  /// Bytes of the elements moved: what every implementation reads and writes, counting only the
  /// elements actually read and written (== dst_bytes() but for a scatter, == src_bytes() but for a
  /// gather). Bytes processed = 2 x moved_bytes(); memcpy and the streaming copy move moved_bytes(),
  /// contiguously.
  std::size_t moved_bytes() const { return static_cast<std::size_t>(out_numel()) * static_cast<std::size_t>(esize); }
  /// Sizes of the permuted (pre-reshape) tensor.
  std::vector<index_t> permuted() const {
    std::vector<index_t> p(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) p[i] = view[static_cast<std::size_t>(perm[i])];
    return p;
  }
  std::string id() const { return family + "/" + dtype + "/" + shape; }
  /// A FLUX chain (the flux families, and the small shapes).
  bool is_flux() const { return flux[0] != 0; }
  std::string name(int threads, const std::string& impl) const {
    return id() + "/t" + std::to_string(threads) + "/" + impl;
  }
};

/// Bytes per element of a dtype name.
inline int esize_of(const std::string& dtype) {
  if (dtype == "fp32") return 4;
  if (dtype == "bf16") return 2;
  if (dtype == "u8") return 1;
  if (dtype == "fp64") return 8;
  throw std::invalid_argument("unknown dtype " + dtype);
}

/// Calls f.template operator()<A, Select>() for the view of a strided gather or scatter: A the
/// rank of its strided side (w.in: 2 or 3, the ranks the families use), Select = w.gather.select.
template <class F>
decltype(auto) with_view_rank(const workload& w, F&& f) {
  const bool sel = w.gather.select;
  switch (w.in.size()) {
    case 2: return sel ? f.template operator()<2, true>() : f.template operator()<2, false>();
    case 3: return sel ? f.template operator()<3, true>() : f.template operator()<3, false>();
    default: throw std::runtime_error("no view instantiation for rank " + std::to_string(w.in.size()));
  }
}

/// Calls f(std::type_identity<T>{}) with the storage type of esize-byte elements (float,
/// uint16_t, uint8_t; and double where With8, which only the scatters family's paths take: fp64 is
/// its dtype alone, and every other path would compile its kernels once more for nothing): the
/// implementations only move elements, so the storage type is all they need, and each instantiates
/// its kernels once per element size here.
template <bool With8 = false, class F>
decltype(auto) dispatch_esize(int esize, F&& f) {
  if constexpr (With8)
    if (esize == 8) return f(std::type_identity<double>{});
  switch (esize) {
    case 4: return f(std::type_identity<float>{});
    case 2: return f(std::type_identity<std::uint16_t>{});
    case 1: return f(std::type_identity<std::uint8_t>{});
    default: throw std::runtime_error("no storage type for " + std::to_string(esize) + "-byte elements");
  }
}

/// Runs one evaluation and returns a pointer to the output bytes (for verification).
using runner = std::function<const void*()>;

/// An implementation: what it supports, and how to prepare a runner for a case.
struct impl {
  std::string name;
  bool verify = true;  ///< compare its output with the reference loop
  std::function<bool(const workload&, int threads)> supports;
  std::function<runner(const workload&, int threads, const void* src, void* dst)> prepare;
};

// Each TU adds its implementations (the peers only when found at configure time).
void add_baseline_impls(std::vector<impl>& v);
void add_lazyview_impls(std::vector<impl>& v);
#ifdef LAZYVIEW_BENCH_HAVE_TORCH
void add_torch_impls(std::vector<impl>& v);
#endif
#ifdef LAZYVIEW_BENCH_HAVE_EIGEN
void add_eigen_impls(std::vector<impl>& v);
#endif
#ifdef LAZYVIEW_BENCH_HAVE_XTENSOR
void add_xtensor_impls(std::vector<impl>& v);
#endif
void register_fold_benchmarks();

// ---- buffers ------------------------------------------------------------------------------------

/// 64-byte aligned, page-touched storage.
struct buffer {
  void* p = nullptr;
  std::size_t n = 0;
  buffer() = default;
  void allocate(std::size_t bytes);
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer();
};

/// The source (deterministic pattern), destination and reference buffers of a given byte size,
/// kept across benchmarks so that the pages are already mapped.
struct case_buffers {
  buffer src, dst, ref;
  std::string ref_owner;  ///< workload id whose reference ref holds
};
case_buffers& buffers_for(std::size_t bytes);

// ---- threads ------------------------------------------------------------------------------------

/// A persistent pool for the baselines and the plain loops, so that the memcpy baseline at 2
/// threads pays no thread start; its workers wait between calls as lazyview's do (a bounded
/// spin, then a futex).
/// run(n, f) calls f(i, n) for i in [0, n), i == 0 on the caller.
void pool_run(int n, const std::function<void(int, int)>& f);

/// Below this many bytes the baselines and the loops use one thread, as lazyview::copy does
/// (lazyview::single_thread_bytes: a hand-off to a worker costs a wake-up).
inline constexpr std::size_t single_thread_bytes = std::size_t{1} << 20;

/// [first, last) of part i of n equal parts of [0, total).
inline void split(index_t total, int i, int n, index_t& first, index_t& last) {
  first = total * i / n;
  last = total * (i + 1) / n;
}

// ---- baselines ----------------------------------------------------------------------------------

void memcpy_mt(void* dst, const void* src, std::size_t bytes, int threads);
void stream_copy_mt(void* dst, const void* src, std::size_t bytes, int threads);

/// The reference: a plain destination-order loop (used to verify every implementation).
void reference_loop(const workload& w, const void* src, void* dst);

}  // namespace lvb
