// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A run's state beyond its parameters, as named arrays: optimizer moments,
// the loss scaler, FP8 amax histories, random-number states, counters.
// Every stateful part of a run lists its state to a RunStateVisitor under
// stable names; a checkpoint writer copies each array out and a reader
// copies each one back in, so one listing serves both directions and a
// resumed run continues with every bit its uninterrupted twin would hold.
//
// Names are dotted paths ("optimizer.h0.qkv.w.m", "scaler.scale"). A part
// lists the same names, in the same sizes, for the same configuration.

#include <mantissa/tensor/dtype.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mantissa {

class RunStateVisitor {
public:
  virtual ~RunStateVisitor() = default;
  virtual void floats(std::string_view name, std::span<float> values) = 0;
  virtual void doubles(std::string_view name, std::span<double> values) = 0;
  virtual void integers(std::string_view name, std::span<std::int64_t> values) = 0;
  virtual void words(std::string_view name, std::span<std::uint64_t> values) = 0;
  // 16-bit patterns of `type` (BF16 or F16): a working copy of weights.
  virtual void halves(std::string_view name, std::span<std::uint16_t> bits, DType type) = 0;

  // One value each.
  void value(std::string_view name, float& v) { floats(name, {&v, 1}); }
  void value(std::string_view name, double& v) { doubles(name, {&v, 1}); }
  void value(std::string_view name, std::int64_t& v) { integers(name, {&v, 1}); }
  void value(std::string_view name, std::uint64_t& v) { words(name, {&v, 1}); }
  static_assert(sizeof(std::size_t) == sizeof(std::uint64_t)); // size_t is unsigned long, as uint64_t
  void value(std::string_view name, int& v) {
    std::int64_t w = v;
    integers(name, {&w, 1});
    v = static_cast<int>(w);
  }
  void value(std::string_view name, bool& v) {
    std::int64_t w = v ? 1 : 0;
    integers(name, {&w, 1});
    v = w != 0;
  }
};

// "prefix.name" for nested parts.
inline std::string stateName(std::string_view prefix, std::string_view name) {
  std::string s(prefix);
  s += '.';
  s += name;
  return s;
}

// Lists a part's state under "prefix." to another visitor.
class PrefixedStateVisitor final : public RunStateVisitor {
public:
  PrefixedStateVisitor(RunStateVisitor& inner, std::string_view prefix)
      : m_inner(inner), m_prefix(prefix) {}
  void floats(std::string_view name, std::span<float> v) override { m_inner.floats(full(name), v); }
  void doubles(std::string_view name, std::span<double> v) override { m_inner.doubles(full(name), v); }
  void integers(std::string_view name, std::span<std::int64_t> v) override {
    m_inner.integers(full(name), v);
  }
  void words(std::string_view name, std::span<std::uint64_t> v) override { m_inner.words(full(name), v); }
  void halves(std::string_view name, std::span<std::uint16_t> bits, DType type) override {
    m_inner.halves(full(name), bits, type);
  }

private:
  std::string full(std::string_view name) const { return stateName(m_prefix, name); }
  RunStateVisitor& m_inner;
  std::string m_prefix;
};

} // namespace mantissa
