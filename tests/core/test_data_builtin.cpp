// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The embedded image sets against the files in resources/data/ (whose SHA-256
// sums are listed in resources/data/README.md), read here independently with
// zlib and a hand-written IDX parse; and the synthetic sets' invariants.
#include <mantissa/data/dataset.h>

#include "test_sha256.h"

#include <gtest/gtest.h>

#include <zlib.h>

#include <array>
#include <fstream>
#include <iterator>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#ifndef MANTISSA_SOURCE_DIR
#error "MANTISSA_SOURCE_DIR must point at the source tree"
#endif

namespace {

using mantissa::data::Dataset;
using mantissa::data::loadBuiltin;

// The decompressed bytes of a resources/data file, via gzread (independent of the loader).
std::vector<unsigned char> gunzip(const std::string& file) {
  const std::string path = std::string(MANTISSA_SOURCE_DIR) + "/resources/data/" + file;
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  std::vector<unsigned char> out;
  if (!f)
    return out;
  std::array<unsigned char, 65536> buf{};
  for (int n; (n = gzread(f, buf.data(), buf.size())) > 0;)
    out.insert(out.end(), buf.begin(), buf.begin() + n);
  gzclose(f);
  return out;
}

std::uint32_t be32(const std::vector<unsigned char>& b, std::size_t at) {
  return std::uint32_t{b[at]} << 24 | std::uint32_t{b[at + 1]} << 16 | std::uint32_t{b[at + 2]} << 8 |
         b[at + 3];
}

// Counts, pixel sum and per-class counts straight from the files.
void expectMatchesFiles(const Dataset& d, const std::string& prefix, std::uint32_t count) {
  const auto images = gunzip(prefix + "-images-idx3-ubyte.gz");
  const auto labels = gunzip(prefix + "-labels-idx1-ubyte.gz");
  ASSERT_EQ(be32(images, 0), 0x803u);
  ASSERT_EQ(be32(images, 4), count);
  ASSERT_EQ(be32(labels, 4), count);
  ASSERT_EQ(images.size(), 16u + std::size_t{count} * 784);

  ASSERT_EQ(d.size(), count);
  EXPECT_EQ(d.features, 784);
  EXPECT_EQ(d.imageWidth, 28);
  EXPECT_EQ(d.imageHeight, 28);
  EXPECT_EQ(d.classes, 10);
  ASSERT_EQ(d.x.size(), std::size_t{count} * 784);

  // Pixel statistics: file bytes k vs loaded k/255.
  double fileSum = 0, loadedSum = 0, fileSq = 0, loadedSq = 0;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    const double k = images[16 + i];
    fileSum += k / 255.0;
    fileSq += (k / 255.0) * (k / 255.0);
    loadedSum += d.x[i];
    loadedSq += double{d.x[i]} * d.x[i];
    mismatches += std::abs(d.x[i] * 255.0 - k) > 1e-3;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_NEAR(loadedSum / d.x.size(), fileSum / d.x.size(), 1e-6);
  EXPECT_NEAR(loadedSq / d.x.size(), fileSq / d.x.size(), 1e-6);
  // MNIST-like: mostly background; mean intensity around 0.1-0.35.
  EXPECT_GT(fileSum / d.x.size(), 0.05);
  EXPECT_LT(fileSum / d.x.size(), 0.40);

  // Labels identical, and classes balanced to within a few percent of N/10.
  std::array<int, 10> perClass{};
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_EQ(d.y[i], labels[8 + i]) << "sample " << i;
    ++perClass[d.y[i]];
  }
  for (int c = 0; c < 10; ++c) {
    EXPECT_GT(perClass[c], static_cast<int>(count) / 10 * 7 / 10) << "class " << c;
    EXPECT_LT(perClass[c], static_cast<int>(count) / 10 * 13 / 10) << "class " << c;
  }
}

std::vector<std::uint8_t> fileBytes(const std::string& file) {
  std::ifstream in(std::string(MANTISSA_SOURCE_DIR) + "/resources/data/" + file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(DataBuiltin, Sha256MatchesTheStandardExample) {
  // FIPS 180-4 example: SHA-256("abc").
  EXPECT_EQ(mantissa::testing::sha256Hex({'a', 'b', 'c'}),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(DataBuiltin, ShippedFilesHaveThePublishedSha256) {
  // The sums listed in resources/data/README.md (from the data's provenance).
  const std::vector<std::pair<std::string, std::string>> sums = {
      {"mnist-10k-test-images-idx3-ubyte.gz", "a40d3fd4b309521fac25118215fee43304259d75833cebcd6e3f37d39716d882"},
      {"mnist-10k-test-labels-idx1-ubyte.gz", "6a755c794676729580932ecfccc871414fc3a938e3517724e64f50efd6657cc2"},
      {"mnist-10k-train-images-idx3-ubyte.gz", "da26c8709cac3e46eab445af0bb44019207892895b66efb3ca47600094a21f52"},
      {"mnist-10k-train-labels-idx1-ubyte.gz", "695d688dea0282972fc0f8668d0135542339f03f52172091f02780d124119c35"},
      {"fashion-12k-test-images-idx3-ubyte.gz", "7ff85d29f2fc053d151b0ddf1a818c6d15539417f668473a9f52c9a5cabee480"},
      {"fashion-12k-test-labels-idx1-ubyte.gz", "337fba7440faff8d3c0a44ab681963bc1178a85249a3663155888f8fa4546d17"},
      {"fashion-12k-train-images-idx3-ubyte.gz", "7f28b653deb0735c3640bd861b108fa87d9fc5beeffdf7a8f3eb0cbcb5fc0d44"},
      {"fashion-12k-train-labels-idx1-ubyte.gz", "0e9020f02b8c7dbe26dc76fde78f5c4987e163182712e815d4df0ef15e419d43"},
  };
  for (const auto& [file, sum] : sums)
    EXPECT_EQ(mantissa::testing::sha256Hex(fileBytes(file)), sum) << file;
}

TEST(DataBuiltin, NamesAreTheFourSets) {
  EXPECT_EQ(mantissa::data::builtinNames(),
            (std::vector<std::string>{"mnist", "fashion", "spirals", "blobs"}));
}

TEST(DataBuiltin, EmbeddedMnistMatchesTheShippedFiles) {
  const auto tt = loadBuiltin("mnist");
  EXPECT_EQ(tt.train.name, "mnist-10k (train)");
  EXPECT_EQ(tt.test.name, "mnist-10k (test)");
  expectMatchesFiles(tt.train, "mnist-10k-train", 8000);
  expectMatchesFiles(tt.test, "mnist-10k-test", 2000);
  EXPECT_EQ(tt.train.classNames.front(), "0");
  EXPECT_EQ(tt.train.classNames.back(), "9");
}

TEST(DataBuiltin, EmbeddedFashionMatchesTheShippedFiles) {
  const auto tt = loadBuiltin("fashion");
  expectMatchesFiles(tt.train, "fashion-12k-train", 10000);
  expectMatchesFiles(tt.test, "fashion-12k-test", 2000);
  ASSERT_EQ(tt.train.classNames.size(), 10u);
  EXPECT_EQ(tt.train.classNames[0], "T-shirt/top");
  EXPECT_EQ(tt.train.classNames[9], "Ankle boot");
}

TEST(DataBuiltin, AttributionIsTheDataReadme) {
  const auto text = mantissa::data::builtinAttribution();
  EXPECT_NE(text.find("Creative Commons Attribution-Share Alike 3.0"), std::string_view::npos);
  EXPECT_NE(text.find("Zalando Research"), std::string_view::npos);
}

TEST(DataBuiltin, UnknownNameListsTheValidOnes) {
  try {
    loadBuiltin("cifar");
    FAIL() << "no error";
  } catch (const mantissa::data::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("cifar"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("spirals"), std::string::npos) << e.what();
  }
}

void expectSynthetic(const Dataset& d, int classes) {
  EXPECT_EQ(d.features, 2);
  EXPECT_EQ(d.classes, classes);
  EXPECT_EQ(d.imageWidth, 0);
  ASSERT_EQ(d.x.size(), d.size() * 2);
  std::vector<int> perClass(static_cast<std::size_t>(classes));
  for (auto label : d.y) {
    ASSERT_LT(label, classes);
    ++perClass[label];
  }
  for (int n : perClass)
    EXPECT_NEAR(n, static_cast<double>(d.size()) / classes, 1.0);
  for (float v : d.x)
    ASSERT_TRUE(std::isfinite(v));
}

TEST(DataBuiltin, SyntheticSetsAreSeededAndBalanced) {
  for (const char* name : {"spirals", "blobs"}) {
    SCOPED_TRACE(name);
    const auto a = loadBuiltin(name, 7);
    const auto b = loadBuiltin(name, 7);
    const auto c = loadBuiltin(name, 8);
    expectSynthetic(a.train, name == std::string("spirals") ? 2 : 4);
    expectSynthetic(a.test, name == std::string("spirals") ? 2 : 4);
    EXPECT_EQ(a.train.x, b.train.x);
    EXPECT_EQ(a.test.x, b.test.x);
    EXPECT_NE(a.train.x, c.train.x);
    EXPECT_NE(a.train.x, a.test.x);
  }
}

TEST(DataBuiltin, SpiralPointsLieOnTheirOwnArm) {
  // The documented arms: arm c at t in [0, 1] is t * (cos a, sin a), a = 3 pi t + c pi.
  // Each point must lie nearer its own arm than the other one.
  const auto d = loadBuiltin("spirals", 3).train;
  const auto distanceToArm = [](double px, double py, int arm) {
    double best = 1e9;
    for (int k = 0; k <= 2000; ++k) {
      const double t = k / 2000.0, a = 3.0 * std::numbers::pi * t + std::numbers::pi * arm;
      best = std::min(best, std::hypot(t * std::cos(a) - px, t * std::sin(a) - py));
    }
    return best;
  };
  int own = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double px = d.x[2 * i], py = d.x[2 * i + 1];
    own += distanceToArm(px, py, d.y[i]) < distanceToArm(px, py, 1 - d.y[i]);
  }
  EXPECT_GT(own, static_cast<int>(d.size()) * 95 / 100);
}

TEST(DataBuiltin, BlobsClusterAroundTheirCentres) {
  const auto d = loadBuiltin("blobs", 1).train;
  std::vector<double> mx(4), my(4), n(4);
  for (std::size_t i = 0; i < d.size(); ++i) {
    mx[d.y[i]] += d.x[2 * i];
    my[d.y[i]] += d.x[2 * i + 1];
    n[d.y[i]] += 1;
  }
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(mx[c] / n[c], 3.0 * std::cos(std::numbers::pi / 2 * c), 0.1) << c;
    EXPECT_NEAR(my[c] / n[c], 3.0 * std::sin(std::numbers::pi / 2 * c), 0.1) << c;
  }
}

} // namespace
