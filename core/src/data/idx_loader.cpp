// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/data/idx_loader.h>

#include "data/byte_stream.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace mantissa::data {
namespace {

using detail::ByteStream;

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

// Reads the magic and the dimensions of an IDX file with `rank` dimensions.
std::vector<std::uint32_t> readHeader(ByteStream& in, int rank, const char* what) {
  std::array<std::uint8_t, 4> magic{};
  if (in.read(magic) != magic.size())
    throw DataError(in.name() + ": too short for an IDX header (" + what + " file)");
  const std::uint32_t got = std::uint32_t{magic[0]} << 24 | std::uint32_t{magic[1]} << 16 |
                            std::uint32_t{magic[2]} << 8 | magic[3];
  const std::uint32_t want = 0x0800u | static_cast<std::uint32_t>(rank);
  if (got != want)
    throw DataError(in.name() + ": bad IDX magic " + hex32(got) + ", expected " + hex32(want) +
                    " (unsigned bytes, " + std::to_string(rank) + " dimension" +
                    (rank > 1 ? "s" : "") + ") for " + what);
  std::vector<std::uint32_t> dims(static_cast<std::size_t>(rank));
  for (auto& d : dims) {
    std::array<std::uint8_t, 4> b{};
    if (in.read(b) != b.size())
      throw DataError(in.name() + ": truncated IDX header (dimensions missing)");
    d = std::uint32_t{b[0]} << 24 | std::uint32_t{b[1]} << 16 | std::uint32_t{b[2]} << 8 | b[3];
  }
  return dims;
}

// Reads exactly n payload bytes and checks nothing follows. n has been checked
// against the limit; for raw data it is also checked against the bytes present
// before allocating, and gzip payloads grow in chunks as they inflate, so a lying
// header never sizes a buffer beyond what the file really holds.
std::vector<std::uint8_t> readPayload(ByteStream& in, std::size_t n, const char* what) {
  if (auto left = in.remainingIfKnown(); left && *left < n)
    throw DataError(in.name() + ": truncated: header declares " + std::to_string(n) + " " + what +
                    " bytes, " + std::to_string(*left) + " present");
  std::vector<std::uint8_t> out;
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  while (out.size() < n) {
    const std::size_t at = out.size();
    out.resize(at + std::min(kChunk, n - at));
    const std::size_t got = in.read(std::span(out).subspan(at));
    if (at + got < out.size())
      throw DataError(in.name() + ": truncated: header declares " + std::to_string(n) + " " +
                      what + " bytes, " + std::to_string(at + got) + " present");
  }
  if (!in.atEnd())
    throw DataError(in.name() + ": trailing data after the " + std::to_string(n) + " " + what +
                    " bytes the header declares");
  return out;
}

} // namespace

Dataset loadIdxBytes(std::span<const std::uint8_t> images, const std::string& imagesName,
                     std::span<const std::uint8_t> labels, const std::string& labelsName,
                     int classes) {
  if (classes < 1 || classes > 256)
    throw std::invalid_argument("loadIdx: classes must be in [1, 256]");
  ByteStream imgIn(images, imagesName);
  const auto dims = readHeader(imgIn, 3, "images");
  const std::uint64_t count = dims[0], rows = dims[1], cols = dims[2];
  if (count == 0 || rows == 0 || cols == 0)
    throw DataError(imagesName + ": empty: dimensions " + std::to_string(count) + "x" +
                    std::to_string(rows) + "x" + std::to_string(cols));
  // Each factor < 2^32, so rows*cols < 2^64; compare before multiplying by count.
  const std::uint64_t pixelsPerImage = rows * cols;
  if (count > kMaxSamples)
    throw DataError(imagesName + ": header declares " + std::to_string(count) +
                    " images, over the limit of " + std::to_string(kMaxSamples) + " samples");
  if (pixelsPerImage > kIdxMaxPixels || count > kIdxMaxPixels / pixelsPerImage)
    throw DataError(imagesName + ": header declares " + std::to_string(count) + " images of " +
                    std::to_string(rows) + "x" + std::to_string(cols) +
                    " pixels, over the limit of 2^26 pixels (256 MiB as float)");
  const auto pixels = readPayload(imgIn, count * pixelsPerImage, "pixel");

  ByteStream lblIn(labels, labelsName);
  const auto ldims = readHeader(lblIn, 1, "labels");
  if (ldims[0] != count)
    throw DataError(labelsName + ": " + std::to_string(ldims[0]) + " labels for " +
                    std::to_string(count) + " images in " + imagesName);
  const auto y = readPayload(lblIn, count, "label");
  if (auto bad = std::find_if(y.begin(), y.end(), [&](std::uint8_t v) { return v >= classes; });
      bad != y.end())
    throw DataError(labelsName + ": label " + std::to_string(*bad) + " at index " +
                    std::to_string(bad - y.begin()) + " is out of range [0, " +
                    std::to_string(classes) + ")");

  Dataset d;
  d.features = static_cast<int>(pixelsPerImage);
  d.classes = classes;
  d.imageWidth = static_cast<int>(cols);
  d.imageHeight = static_cast<int>(rows);
  d.x.resize(pixels.size());
  std::transform(pixels.begin(), pixels.end(), d.x.begin(),
                 [](std::uint8_t p) { return static_cast<float>(p) / 255.0f; });
  d.y = y;
  for (int c = 0; c < classes; ++c)
    d.classNames.push_back(std::to_string(c));
  return d;
}

Dataset loadIdx(const std::filesystem::path& images, const std::filesystem::path& labels,
                int classes) {
  const auto imageBytes = detail::readFileBytes(images);
  const auto labelBytes = detail::readFileBytes(labels);
  Dataset d = loadIdxBytes(imageBytes, images.string(), labelBytes, labels.string(), classes);
  d.name = images.filename().string();
  return d;
}

} // namespace mantissa::data
