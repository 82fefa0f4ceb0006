// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Tensor: an owning, 64-byte aligned, row-major 2-D buffer of one DType.
//
// Shape [rows, cols]; element (r, c) lives at index r * cols + c. F32 data is
// read as float, BF16 and F16 data as their 16-bit patterns (std::uint16_t).
// Storage is zero-filled on construction and padded to a multiple of 64 bytes
// so vector loops and oneDNN never straddle an allocation's end. Copies are
// deep; moves steal the buffer and leave an empty [0, 0] tensor behind.

#include <mantissa/tensor/dtype.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

namespace mantissa {

class Tensor {
public:
  static constexpr std::size_t kAlignment = 64;

  Tensor() = default;
  // Zero-filled [rows, cols] tensor; throws std::invalid_argument on a
  // negative or overflowing shape.
  Tensor(DType dtype, std::int64_t rows, std::int64_t cols);

  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor() = default;

  DType dtype() const { return m_dtype; }
  std::int64_t rows() const { return m_rows; }
  std::int64_t cols() const { return m_cols; }
  std::int64_t size() const { return m_rows * m_cols; }
  std::size_t bytes() const { return static_cast<std::size_t>(size()) * dtypeSize(m_dtype); }

  // Typed access, checked: T must be float for F32 and std::uint16_t for
  // BF16/F16, otherwise std::logic_error names both types.
  template <class T> T* data() {
    checkElementType(std::is_same_v<T, float>, std::is_same_v<T, std::uint16_t>);
    return reinterpret_cast<T*>(m_storage.get());
  }
  template <class T> const T* data() const {
    checkElementType(std::is_same_v<T, float>, std::is_same_v<T, std::uint16_t>);
    return reinterpret_cast<const T*>(m_storage.get());
  }

  // Whole-buffer views; throw std::logic_error if the dtype does not match.
  std::span<float> f32() { return {data<float>(), static_cast<std::size_t>(size())}; }
  std::span<const float> f32() const { return {data<float>(), static_cast<std::size_t>(size())}; }
  std::span<std::uint16_t> u16() {
    return {data<std::uint16_t>(), static_cast<std::size_t>(size())};
  }
  std::span<const std::uint16_t> u16() const {
    return {data<std::uint16_t>(), static_cast<std::size_t>(size())};
  }

  // Untyped storage, for kernels that pass pointers to oneDNN.
  void* raw() { return m_storage.get(); }
  const void* raw() const { return m_storage.get(); }

  // Copy src's values into this tensor's dtype. Shapes must match (else
  // std::invalid_argument). F32 -> BF16/F16 rounds to nearest, ties to even;
  // BF16/F16 -> F32 is exact; BF16 <-> F16 goes through F32 (exact widening,
  // then one RNE rounding). Uses the batch conversions of numeric/convert.h.
  void convertFrom(const Tensor& src);

private:
  struct AlignedFree {
    void operator()(std::byte* p) const noexcept;
  };

  void checkElementType(bool isFloat, bool isU16) const;

  DType m_dtype = DType::F32;
  std::int64_t m_rows = 0;
  std::int64_t m_cols = 0;
  std::unique_ptr<std::byte[], AlignedFree> m_storage; // kAlignment-aligned, bytes() rounded up
};

} // namespace mantissa
