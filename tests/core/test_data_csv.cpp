// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// CSV loading, and loadDataSpec's choice between built-ins, IDX files,
// directories and CSV.
#include <mantissa/data/csv_loader.h>
#include <mantissa/data/dataset.h>

#include "test_data_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace {

using mantissa::data::loadCsv;
using mantissa::data::loadDataSpec;
using mantissa::testing::Bytes;
using mantissa::testing::expectDataError;
using mantissa::testing::idx;
using mantissa::testing::TempDir;

TEST(DataCsv, HeaderAndValues) {
  TempDir dir;
  const auto d = loadCsv(dir.writeText("d.csv", "label,a,b\n2,0.5,-1\r\n0, 3 ,+4e-1\n\n1,7,8\n"));
  EXPECT_EQ(d.name, "d.csv");
  EXPECT_EQ(d.features, 2);
  EXPECT_EQ(d.classes, 3);
  EXPECT_EQ(d.y, (std::vector<std::uint8_t>{2, 0, 1}));
  EXPECT_EQ(d.x, (std::vector<float>{0.5f, -1.0f, 3.0f, 0.4f, 7.0f, 8.0f}));
  EXPECT_EQ(d.imageWidth, 0);
  EXPECT_EQ(d.classNames.size(), 3u);
}

TEST(DataCsv, NoHeader) {
  TempDir dir;
  const auto d = loadCsv(dir.writeText("d.csv", "1,2\n0,3"));
  EXPECT_EQ(d.y, (std::vector<std::uint8_t>{1, 0}));
  EXPECT_EQ(d.x, (std::vector<float>{2.0f, 3.0f}));
}

TEST(DataCsv, RaggedRowNamesTheLine) {
  TempDir dir;
  expectDataError([&] { loadCsv(dir.writeText("r.csv", "y,a,b\n1,2,3\n0,1\n")); },
                  {"r.csv", "line 3", "2 columns, expected 3"});
}

TEST(DataCsv, NonNumericCellNamesLineAndColumn) {
  TempDir dir;
  expectDataError([&] { loadCsv(dir.writeText("n.csv", "y,a,b\n1,2,3\n0,1,abc\n")); },
                  {"n.csv", "line 3, column 3", "'abc' is not a finite number"});
  expectDataError([&] { loadCsv(dir.writeText("nan.csv", "1,nan\n")); },
                  {"nan.csv", "line 1, column 2", "not a finite number"});
  expectDataError([&] { loadCsv(dir.writeText("big.csv", "1,1e39\n")); },
                  {"big.csv", "not a finite number"});
}

TEST(DataCsv, LabelsMustBeIntegersInRange) {
  TempDir dir;
  for (const char* label : {"1.5", "-1", "256", "x"}) {
    SCOPED_TRACE(label);
    expectDataError([&] { loadCsv(dir.writeText("l.csv", "0,1\n" + std::string(label) + ",2\n")); },
                    {"l.csv", "line 2, column 1", "not an integer in [0, 255]"});
  }
}

TEST(DataCsv, EmptyFilesAreNamed) {
  TempDir dir;
  expectDataError([&] { loadCsv(dir.writeText("e.csv", "")); }, {"e.csv", "empty file"});
  expectDataError([&] { loadCsv(dir.writeText("h.csv", "label,a\n\n")); }, {"h.csv", "no data rows"});
  expectDataError([&] { loadCsv(dir.writeText("one.csv", "1\n2\n")); },
                  {"one.csv", "line 1", "at least one feature"});
  expectDataError([&] { loadCsv(dir.path() / "absent.csv"); }, {"absent.csv", "no such file"});
}

// Dataset with one feature equal to the sample's index, label index % 3.
std::string indexCsv(int n) {
  std::string s = "label,index\n";
  for (int i = 0; i < n; ++i)
    s += std::to_string(i % 3) + "," + std::to_string(i) + "\n";
  return s;
}

std::multiset<float> indices(const mantissa::data::Dataset& d) { return {d.x.begin(), d.x.end()}; }

TEST(DataSpec, CsvIsSplitEightyTwentyDeterministically) {
  TempDir dir;
  const auto path = dir.writeText("s.csv", indexCsv(100));
  const auto a = loadDataSpec(path.string());
  const auto b = loadDataSpec(path.string());
  EXPECT_EQ(a.train.size(), 80u);
  EXPECT_EQ(a.test.size(), 20u);
  EXPECT_EQ(a.train.x, b.train.x);
  EXPECT_EQ(a.test.x, b.test.x);
  // A partition of all samples, shuffled (not the first 80 rows), labels kept with rows.
  auto all = indices(a.train);
  all.merge(indices(a.test));
  std::multiset<float> expected;
  for (int i = 0; i < 100; ++i)
    expected.insert(static_cast<float>(i));
  EXPECT_EQ(all, expected);
  EXPECT_NE(*std::max_element(a.train.x.begin(), a.train.x.end()) - 79.0f, 0.0f);
  for (std::size_t i = 0; i < a.test.size(); ++i)
    EXPECT_EQ(a.test.y[i], static_cast<int>(a.test.x[i]) % 3);
}

TEST(DataSpec, BuiltinNamesAndUnknownPaths) {
  EXPECT_EQ(loadDataSpec("spirals").train.name, "spirals (train)");
  EXPECT_EQ(loadDataSpec("blobs", 5).train.x, mantissa::data::loadBuiltin("blobs", 5).train.x);
  EXPECT_NE(loadDataSpec("blobs", 5).train.x, loadDataSpec("blobs", 6).train.x);
  expectDataError([] { loadDataSpec("/no/such/place.idx"); },
                  {"/no/such/place.idx", "not a built-in data set", "no such file"});
}

Bytes images(std::uint32_t n) { return idx(0x08, {n, 2, 2}, Bytes(n * 4, 128)); }
Bytes labels(std::uint32_t n) { return idx(0x08, {n}, Bytes(n, 1)); }

TEST(DataSpec, IdxDirectoryWithMnistNaming) {
  TempDir dir;
  dir.write("train-images-idx3-ubyte", images(12));
  dir.write("train-labels-idx1-ubyte", labels(12));
  dir.write("t10k-images-idx3-ubyte", images(5));
  dir.write("t10k-labels-idx1-ubyte", labels(5));
  const auto tt = loadDataSpec(dir.path().string());
  EXPECT_EQ(tt.train.size(), 12u);
  EXPECT_EQ(tt.test.size(), 5u);
  // The images file alone finds its labels and its t10k test set.
  const auto one = loadDataSpec((dir.path() / "train-images-idx3-ubyte").string());
  EXPECT_EQ(one.train.size(), 12u);
  EXPECT_EQ(one.test.size(), 5u);
}

TEST(DataSpec, LoneIdxFileIsSplit) {
  TempDir dir;
  dir.write("digits-images-idx3-ubyte", images(10));
  dir.write("digits-labels-idx1-ubyte", labels(10));
  const auto tt = loadDataSpec((dir.path() / "digits-images-idx3-ubyte").string());
  EXPECT_EQ(tt.train.size(), 8u);
  EXPECT_EQ(tt.test.size(), 2u);
}

TEST(DataSpec, MissingLabelsOrPairsAreNamed) {
  TempDir dir;
  dir.write("train-images-idx3-ubyte", images(3));
  expectDataError([&] { loadDataSpec((dir.path() / "train-images-idx3-ubyte").string()); },
                  {"train-labels-idx1-ubyte", "no such file"});
  expectDataError([&] { loadDataSpec(dir.path().string()); },
                  {dir.path().string(), "found 1 and 0"});
  dir.write("mystery.bin", images(3));
  expectDataError([&] { loadDataSpec((dir.path() / "mystery.bin").string()); },
                  {"mystery.bin", "cannot find its labels"});
}

} // namespace
