// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// IDX loading: well-formed files (raw and gzip) load exactly; each kind of
// malformed or hostile file gives a DataError naming the file and the problem.
#include <mantissa/data/idx_loader.h>

#include "test_data_util.h"

#include <gtest/gtest.h>

#include <random>

namespace {

using mantissa::data::loadIdx;
using mantissa::testing::Bytes;
using mantissa::testing::expectDataError;
using mantissa::testing::gzip;
using mantissa::testing::idx;
using mantissa::testing::TempDir;

// Three 2x3 images with pixels 0, 1, ..., 17 scaled by 15 (so 0..255), labels 2, 0, 9.
Bytes pixels() {
  Bytes p;
  for (int i = 0; i < 18; ++i)
    p.push_back(static_cast<std::uint8_t>(i * 15));
  return p;
}
Bytes goodImages() { return idx(0x08, {3, 2, 3}, pixels()); }
Bytes goodLabels() { return idx(0x08, {3}, {2, 0, 9}); }

void expectGood(const mantissa::data::Dataset& d) {
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d.features, 6);
  EXPECT_EQ(d.imageWidth, 3);
  EXPECT_EQ(d.imageHeight, 2);
  EXPECT_EQ(d.classes, 10);
  ASSERT_EQ(d.x.size(), 18u);
  for (int i = 0; i < 18; ++i)
    EXPECT_FLOAT_EQ(d.x[static_cast<std::size_t>(i)], static_cast<float>(i * 15) / 255.0f);
  EXPECT_EQ(d.y, (std::vector<std::uint8_t>{2, 0, 9}));
}

TEST(DataIdx, RawFilesLoadExactly) {
  TempDir dir;
  expectGood(loadIdx(dir.write("i.idx3", goodImages()), dir.write("l.idx1", goodLabels())));
}

TEST(DataIdx, GzipFilesLoadExactly) {
  TempDir dir;
  expectGood(loadIdx(dir.write("i.gz", gzip(goodImages())), dir.write("l.gz", gzip(goodLabels()))));
}

TEST(DataIdx, ConcatenatedGzipMembersAreOneStream) {
  TempDir dir;
  const Bytes all = goodImages();
  Bytes twoMembers = gzip(Bytes(all.begin(), all.begin() + 10));
  const Bytes rest = gzip(Bytes(all.begin() + 10, all.end()));
  twoMembers.insert(twoMembers.end(), rest.begin(), rest.end());
  expectGood(loadIdx(dir.write("i.gz", twoMembers), dir.write("l.idx1", goodLabels())));
}

TEST(DataIdx, BadMagicIsNamed) {
  TempDir dir;
  const auto labels = dir.write("l.idx1", goodLabels());
  // Labels file given as images: rank 1 where 3 is expected.
  expectDataError([&] { loadIdx(labels, labels); }, {"l.idx1", "bad IDX magic 0x00000801", "0x00000803"});
  // Element type 0x0D (float) is not accepted.
  const auto floats = dir.write("f.idx3", idx(0x0D, {3, 2, 3}, pixels()));
  expectDataError([&] { loadIdx(floats, labels); }, {"f.idx3", "bad IDX magic 0x00000D03"});
  // Not IDX at all.
  const auto text = dir.writeText("t.idx3", "hello, world\n");
  expectDataError([&] { loadIdx(text, labels); }, {"t.idx3", "bad IDX magic"});
}

TEST(DataIdx, TruncationIsNamed) {
  TempDir dir;
  const auto labels = dir.write("l.idx1", goodLabels());
  Bytes shortImages = goodImages();
  shortImages.resize(shortImages.size() - 5);
  expectDataError([&] { loadIdx(dir.write("short.idx3", shortImages), labels); },
                  {"short.idx3", "truncated", "18 pixel bytes", "13 present"});
  // Same file gzip'd: the gzip stream is complete but its content is short.
  expectDataError([&] { loadIdx(dir.write("short.gz", gzip(shortImages)), labels); },
                  {"short.gz", "truncated", "13 present"});
  // A header cut inside the dimensions.
  expectDataError([&] { loadIdx(dir.write("hdr.idx3", Bytes{0, 0, 8, 3, 0, 0}), labels); },
                  {"hdr.idx3", "truncated IDX header"});
  expectDataError([&] { loadIdx(dir.write("empty.idx3", Bytes{}), labels); },
                  {"empty.idx3", "too short"});
}

TEST(DataIdx, TruncatedGzipStreamIsNamed) {
  TempDir dir;
  Bytes gz = gzip(goodImages());
  gz.resize(gz.size() / 2);
  expectDataError([&] { loadIdx(dir.write("cut.gz", gz), dir.write("l.idx1", goodLabels())); },
                  {"cut.gz", "truncated gzip data"});
}

TEST(DataIdx, GzipGarbageIsNamed) {
  TempDir dir;
  const auto labels = dir.write("l.idx1", goodLabels());
  // A gzip header followed by a deflate block of the reserved type 11.
  Bytes garbage = {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0xFF};
  for (int i = 0; i < 200; ++i)
    garbage.push_back(static_cast<std::uint8_t>(i * 37 + 11));
  expectDataError([&] { loadIdx(dir.write("junk.gz", garbage), labels); },
                  {"junk.gz", "corrupt gzip data", "invalid block type"});
  // A valid stream whose CRC-32 trailer was damaged.
  Bytes badCrc = gzip(goodImages());
  badCrc[badCrc.size() - 8] ^= 0x01;
  expectDataError([&] { loadIdx(dir.write("crc.gz", badCrc), labels); },
                  {"crc.gz", "corrupt gzip data", "incorrect data check"});
}

TEST(DataIdx, TrailingBytesAreNamed) {
  TempDir dir;
  const auto labels = dir.write("l.idx1", goodLabels());
  Bytes longer = goodImages();
  longer.push_back(7);
  expectDataError([&] { loadIdx(dir.write("long.idx3", longer), labels); },
                  {"long.idx3", "trailing data after the 18 pixel bytes"});
  Bytes afterGzip = gzip(goodImages());
  afterGzip.insert(afterGzip.end(), {'j', 'u', 'n', 'k'});
  expectDataError([&] { loadIdx(dir.write("tail.gz", afterGzip), labels); },
                  {"tail.gz", "trailing garbage", "4 bytes after the end of the gzip data"});
}

TEST(DataIdx, HugeDimensionsAreRefusedBeforeAllocating) {
  TempDir dir;
  const auto labels = dir.write("l.idx1", goodLabels());
  // 4 billion 65535x65535 images in a 16-byte file: refused by the limit.
  expectDataError(
      [&] { loadIdx(dir.write("huge.idx3", idx(0x08, {0xFFFFFFFF, 0xFFFF, 0xFFFF}, {})), labels); },
      {"huge.idx3", "over the limit of 4194304 samples"});
  expectDataError(
      [&] { loadIdx(dir.write("wide.idx3", idx(0x08, {1000, 0xFFFF, 0xFFFF}, {})), labels); },
      {"wide.idx3", "over the limit of 2^26 pixels"});
  // Within the limit (50 M pixels) but absent from the file: truncation, found
  // from the file size before any buffer of that size exists.
  expectDataError(
      [&] { loadIdx(dir.write("big.idx3", idx(0x08, {50000, 1000, 1}, {1, 2, 3})), labels); },
      {"big.idx3", "truncated", "50000000 pixel bytes", "3 present"});
  // The same lie inside a small gzip file.
  expectDataError(
      [&] { loadIdx(dir.write("big.gz", gzip(idx(0x08, {50000, 1000, 1}, {1, 2, 3}))), labels); },
      {"big.gz", "truncated", "3 present"});
  expectDataError([&] { loadIdx(dir.write("zero.idx3", idx(0x08, {0, 28, 28}, {})), labels); },
                  {"zero.idx3", "empty"});
}

TEST(DataIdx, LabelProblemsAreNamed) {
  TempDir dir;
  const auto images = dir.write("i.idx3", goodImages());
  expectDataError([&] { loadIdx(images, dir.write("two.idx1", idx(0x08, {2}, {1, 2}))); },
                  {"two.idx1", "2 labels for 3 images"});
  expectDataError([&] { loadIdx(images, dir.write("ten.idx1", idx(0x08, {3}, {1, 10, 2}))); },
                  {"ten.idx1", "label 10 at index 1 is out of range [0, 10)"});
  // More classes accepted when asked for.
  EXPECT_EQ(loadIdx(images, dir.write("ok.idx1", idx(0x08, {3}, {1, 10, 2})), 26).classes, 26);
}

TEST(DataIdx, MissingFilesAreNamed) {
  TempDir dir;
  const auto labels = dir.write("l.idx1", goodLabels());
  expectDataError([&] { loadIdx(dir.path() / "nope.idx3", labels); }, {"nope.idx3", "no such file"});
  expectDataError([&] { loadIdx(dir.path(), labels); }, {"is a directory"});
}

// Hostile inputs: thousands of damaged variants of valid files (bytes flipped,
// cut, inserted), raw and gzip'd. Each must either load consistently or throw a
// DataError; anything else (a crash, another exception) fails the test, and the
// sanitizer build checks the memory accesses.
TEST(DataIdx, DamagedFilesLoadOrFailCleanly) {
  TempDir dir;
  std::mt19937 rng(12345);
  const Bytes rawImages = goodImages();
  const Bytes gzImages = gzip(rawImages);
  const auto labels = dir.write("l.idx1", goodLabels());
  int loaded = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Bytes b = trial % 2 ? gzImages : rawImages;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !b.empty(); ++e) {
      const std::size_t at = rng() % b.size();
      switch (rng() % 3) {
      case 0: b[at] = static_cast<std::uint8_t>(rng()); break;
      case 1: b.resize(at); break;
      default: b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng()));
      }
    }
    try {
      const auto d = loadIdx(dir.write("fuzz", b), labels);
      ASSERT_EQ(d.x.size(), d.size() * static_cast<std::size_t>(d.features));
      ++loaded;
    } catch (const mantissa::data::DataError& e) {
      ASSERT_NE(std::string(e.what()).find("fuzz"), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(refused, 2000); // almost every damage is detected (pixel-byte flips load fine)
  EXPECT_GT(loaded, 0);
}

} // namespace
