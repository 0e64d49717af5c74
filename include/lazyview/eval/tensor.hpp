#pragma once
// The owning tensor: what contiguous() returns. Row-major, 64-byte aligned (large ones whole
// pages, kept for reuse when freed: eval/storage.hpp), and the start of new chains (as an lvalue
// only: a chain keeps a pointer into it).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "../expr/node.hpp"
#include "storage.hpp"

namespace lazyview {

/// An owning row-major tensor of rank R.
/// @post data() is 64-byte aligned, or as storage_alignment says of its block: 4 KiB from
/// large_block_threshold bytes on, 2 MiB from 2 MiB; strides are row-major: (2,3) -> (3,1).
template <class T, int R>
class tensor : public expr_ops<tensor<T, R>> {
  static_assert(std::is_trivially_copyable_v<T>, "lazyview::tensor holds trivially copyable elements");
  struct deleter {
    std::size_t cap = 0;  // the block's capacity (allocate_storage)
    void operator()(T* p) const { release_storage(static_cast<void*>(p), cap); }
  };

 public:
  using value_type = T;
  static constexpr int rank = R;
  static constexpr int depth = 0;
  static constexpr bool is_static = false;
  static constexpr bool owning = true;
  static constexpr std::size_t alignment = 64;

  tensor() = default;
  /// A zero-filled tensor of the given sizes.
  explicit tensor(const std::array<index_t, R>& sizes) : tensor(sizes, uninitialized{}) {
    if (numel_) std::memset(static_cast<void*>(data_.get()), 0, static_cast<std::size_t>(numel_) * sizeof(T));
  }
  tensor(const tensor& o) : tensor(o.sizes_, uninitialized{}) {
    if (numel_) std::memcpy(static_cast<void*>(data_.get()), o.data_.get(), static_cast<std::size_t>(numel_) * sizeof(T));
  }
  tensor(tensor&&) noexcept = default;
  tensor& operator=(const tensor& o) {
    if (this != &o) *this = tensor(o);
    return *this;
  }
  tensor& operator=(tensor&&) noexcept = default;

  struct uninitialized {};
  /// Storage without initialisation (evaluation writes every element).
  tensor(const std::array<index_t, R>& sizes, uninitialized) : sizes_(sizes) {
    numel_ = product_of(R, [&](int i) { return sizes_[static_cast<std::size_t>(i)]; });
    if (numel_ > 0) {
      std::size_t cap = 0;
      T* const p = static_cast<T*>(allocate_storage(static_cast<std::size_t>(numel_) * sizeof(T), &cap));
      data_ = std::unique_ptr<T, deleter>(p, deleter{cap});
    }
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  const std::array<index_t, R>& sizes() const { return sizes_; }
  std::array<index_t, R> strides() const { return row_major_strides(sizes_); }
  index_t numel() const { return numel_; }
  constexpr bool is_view() const { return true; }
  constexpr bool is_contiguous() const { return true; }

  /// The chain start over this tensor's memory: (sizes):(row-major strides).
  auto ref() & { return from_blob(data_.get(), sizes_, row_major_strides(sizes_)); }
  auto ref() const& { return from_blob(static_cast<const T*>(data_.get()), sizes_, row_major_strides(sizes_)); }
  void ref() && = delete;

 private:
  std::array<index_t, R> sizes_{};
  index_t numel_ = 0;
  std::unique_ptr<T, deleter> data_;
};

}  // namespace lazyview
