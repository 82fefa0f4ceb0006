// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// IDX files (the MNIST format): bytes 0-1 zero, byte 2 the element type (0x08 =
// unsigned byte, the only one accepted), byte 3 the number of dimensions, then
// one big-endian uint32 per dimension, then the row-major payload. Images are
// [N, rows, cols], labels [N]. Files may be gzip-compressed (detected by their
// magic bytes 1f 8b) or raw.
//
// Everything is validated before it is trusted: the header's sizes are checked
// against the limit below and against the bytes actually present before any
// buffer is sized by them; truncation, trailing bytes, a corrupt gzip stream,
// labels out of range and an image/label count mismatch are DataErrors.

#include <mantissa/data/dataset.h>

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

namespace mantissa::data {

// Largest accepted image payload: kMaxSampleValues (64 Mi pixels, 256 MiB as
// float) in at most kMaxSamples images; gzip data is inflated only that far.
inline constexpr std::size_t kIdxMaxPixels = kMaxSampleValues;

// Images and labels from two files; classes is the label range accepted, [0, classes).
Dataset loadIdx(const std::filesystem::path& images, const std::filesystem::path& labels,
                int classes = 10);

// The same from bytes already in memory (the embedded sets); the names are used
// in messages only.
Dataset loadIdxBytes(std::span<const std::uint8_t> images, const std::string& imagesName,
                     std::span<const std::uint8_t> labels, const std::string& labelsName,
                     int classes = 10);

} // namespace mantissa::data
