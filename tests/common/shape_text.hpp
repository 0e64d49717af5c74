#pragma once
// Helpers shared by the eval, laws and oracle tests: a shape as PyTorch prints it, and its element count.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>

namespace lazyview_test {

/// [2, 3, 4], as in PyTorch's messages. One function for every rank: a std::array or a vector of
/// sizes converts to the span.
inline std::string fmt(std::span<const std::int64_t> a)
{
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
    os << ']';
    return os.str();
}

template <std::size_t R>
std::int64_t numel_of(std::array<std::int64_t, R> const& s)
{
    std::int64_t n = 1;
    for (auto v : s) n *= v;
    return n;
}

}  // namespace lazyview_test
