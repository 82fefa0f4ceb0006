// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/convert.h>
#include <mantissa/tensor/tensor.h>

#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace mantissa {
namespace {

// Largest element count we accept: keeps rows * cols * 4 + 63 inside size_t
// and inside what std::span and oneDNN's int64 dims can describe.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

std::size_t paddedBytes(std::size_t bytes) {
  return (bytes + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment;
}

std::string shapeText(const Tensor& t) {
  return std::string(dtypeName(t.dtype())) + "[" + std::to_string(t.rows()) + ", " +
         std::to_string(t.cols()) + "]";
}

} // namespace

void Tensor::AlignedFree::operator()(std::byte* p) const noexcept {
  ::operator delete[](p, std::align_val_t{kAlignment});
}

Tensor::Tensor(DType dtype, std::int64_t rows, std::int64_t cols)
    : m_dtype(dtype), m_rows(rows), m_cols(cols) {
  if (rows < 0 || cols < 0)
    throw std::invalid_argument("Tensor: negative shape [" + std::to_string(rows) + ", " +
                                std::to_string(cols) + "]");
  if (cols != 0 && rows > kMaxElements / cols)
    throw std::invalid_argument("Tensor: shape [" + std::to_string(rows) + ", " +
                                std::to_string(cols) + "] has too many elements");
  const std::size_t padded = paddedBytes(bytes());
  if (padded == 0)
    return;
  m_storage.reset(static_cast<std::byte*>(::operator new[](padded, std::align_val_t{kAlignment})));
  std::memset(m_storage.get(), 0, padded);
}

Tensor::Tensor(const Tensor& other) : Tensor(other.m_dtype, other.m_rows, other.m_cols) {
  if (other.m_storage)
    std::memcpy(m_storage.get(), other.m_storage.get(), bytes());
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) {
    Tensor copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Tensor::Tensor(Tensor&& other) noexcept
    : m_dtype(other.m_dtype), m_rows(other.m_rows), m_cols(other.m_cols),
      m_storage(std::move(other.m_storage)) {
  other.m_rows = 0;
  other.m_cols = 0;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    m_dtype = other.m_dtype;
    m_rows = other.m_rows;
    m_cols = other.m_cols;
    m_storage = std::move(other.m_storage);
    other.m_rows = 0;
    other.m_cols = 0;
  }
  return *this;
}

void Tensor::checkElementType(bool isFloat, bool isU16) const {
  const bool ok = m_dtype == DType::F32 ? isFloat : isU16;
  if (!ok)
    throw std::logic_error("Tensor: " + shapeText(*this) + " accessed as " +
                           (isFloat ? "float"
                            : isU16 ? "uint16"
                                    : "another type") +
                           "; " + std::string(dtypeName(m_dtype)) + " data is read as " +
                           (m_dtype == DType::F32 ? "float" : "std::uint16_t bit patterns"));
}

void Tensor::convertFrom(const Tensor& src) {
  if (src.rows() != m_rows || src.cols() != m_cols)
    throw std::invalid_argument("Tensor::convertFrom: shape mismatch, source " + shapeText(src) +
                                " vs destination " + shapeText(*this));
  if (src.m_dtype == m_dtype) {
    if (bytes() != 0 && this != &src)
      std::memcpy(m_storage.get(), src.m_storage.get(), bytes());
    return;
  }
  using namespace numeric;
  if (src.m_dtype == DType::F32) {
    if (m_dtype == DType::BF16)
      convertF32ToBf16(src.f32(), u16());
    else
      convertF32ToF16(src.f32(), u16());
    return;
  }
  if (m_dtype == DType::F32) {
    if (src.m_dtype == DType::BF16)
      convertBf16ToF32(src.u16(), f32());
    else
      convertF16ToF32(src.u16(), f32());
    return;
  }
  // BF16 <-> F16: widen exactly to F32, then round once.
  Tensor wide(DType::F32, m_rows, m_cols);
  wide.convertFrom(src);
  convertFrom(wide);
}

} // namespace mantissa
