// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// File faults: a data file truncated anywhere (raw and gzip), a data file
// rewritten while it is being loaded, a full disk and an unwritable directory
// while exporting. Each must end in a clear error naming the file, never a
// crash, and must leave an existing file intact.

#include "file_size_limit.h"
#include "test_data_util.h"

#include <mantissa/data/csv_loader.h>
#include <mantissa/data/idx_loader.h>
#include <mantissa/io/atomic_file.h>
#include <mantissa/telemetry/csv_writer.h>

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include <sys/resource.h>

using namespace mantissa;
using mantissa::testing::Bytes;
using mantissa::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// 3 images of 2x2 pixels, 3 labels.
Bytes images() { return mantissa::testing::idx(0x08, {3, 2, 2}, Bytes{0, 64, 128, 255, 1, 2, 3, 4, 9, 8, 7, 6}); }
Bytes labels() { return mantissa::testing::idx(0x08, {3}, Bytes{1, 0, 9}); }

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using mantissa::testing::FileSizeLimit;

} // namespace

TEST(FaultsFiles, IdxTruncatedAtEveryByteIsADataErrorNamingTheFile) {
  TempDir dir;
  const Bytes fullImages = images();
  const auto labelsPath = dir.write("l-labels.idx1", labels());
  for (std::size_t n = 0; n < fullImages.size(); ++n) {
    const auto p = dir.write("t-images.idx3", Bytes(fullImages.begin(), fullImages.begin() + long(n)));
    try {
      data::loadIdx(p, labelsPath);
      ADD_FAILURE() << "truncated to " << n << " bytes but loaded";
    } catch (const data::DataError& e) {
      EXPECT_NE(std::string(e.what()).find("t-images.idx3"), std::string::npos) << e.what();
    }
  }
  // The untruncated pair loads (so the loop above tested truncation, not a bad file).
  const auto whole = data::loadIdx(dir.write("t-images.idx3", fullImages), labelsPath);
  EXPECT_EQ(whole.size(), 3u);
}

TEST(FaultsFiles, GzipTruncatedAtEveryByteIsADataError) {
  TempDir dir;
  const Bytes gz = mantissa::testing::gzip(images());
  const auto labelsPath = dir.write("l-labels.idx1", labels());
  for (std::size_t n = 0; n < gz.size(); ++n) {
    const auto p = dir.write("g-images.idx3.gz", Bytes(gz.begin(), gz.begin() + long(n)));
    EXPECT_THROW(data::loadIdx(p, labelsPath), data::DataError) << "truncated to " << n;
  }
  EXPECT_EQ(data::loadIdx(dir.write("g-images.idx3.gz", gz), labelsPath).size(), 3u);
}

// A writer thread keeps rewriting the file in place (truncate, then write in
// pieces) between two valid contents of different shapes while the main
// thread loads it: each load is a DataError or one of the two whole data sets.
TEST(FaultsFiles, CsvRewrittenWhileLoadingGivesAnErrorOrAWholeDataSet) {
  TempDir dir;
  std::string a = "label,x,y\n";
  std::string b = "label,p,q,r,s\n";
  for (int i = 0; i < 200; ++i) {
    a += std::to_string(i % 2) + ",0.5,-1.25\n";
    b += std::to_string(i % 3) + ",1,2,3,4\n";
  }
  const fs::path path = dir.writeText("live.csv", a);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int round = 0; !done; ++round) {
      const std::string& text = round % 2 ? b : a;
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      for (std::size_t off = 0; off < text.size(); off += 97) {
        out.write(text.data() + off, long(std::min<std::size_t>(97, text.size() - off)));
        out.flush();
      }
    }
  });
  int loaded = 0, errors = 0;
  for (int i = 0; i < 300; ++i) {
    try {
      const data::Dataset d = data::loadCsv(path);
      ++loaded;
      ASSERT_TRUE(d.features == 2 || d.features == 4) << d.features;
      ASSERT_EQ(d.x.size(), d.size() * std::size_t(d.features));
      ASSERT_LE(d.size(), 200u); // never rows of both contents glued
      for (float v : d.x)
        ASSERT_TRUE(std::isfinite(v));
    } catch (const data::DataError& e) {
      ++errors;
      ASSERT_NE(std::string(e.what()).find("live.csv"), std::string::npos) << e.what();
    }
  }
  done = true;
  writer.join();
  EXPECT_EQ(loaded + errors, 300);
}

TEST(FaultsFiles, FullDiskWhileExportingKeepsTheOldFileAndNamesIt) {
  TempDir dir;
  const fs::path p = dir.path() / "export.csv";
  io::writeFileAtomically(p, "step,loss\n0,1\n");
  const std::string big(1 << 20, 'x');
  {
    const FileSizeLimit limit(64 * 1024);
    try {
      io::writeFileAtomically(p, big);
      ADD_FAILURE() << "a write past the file size limit succeeded";
    } catch (const io::AtomicFileError& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
    // The streaming CSV export: rows fill the "disk", commit() reports it.
    try {
      telemetry::ScalarCsvWriter csv(p, {"loss"});
      const double v[1] = {0.125};
      for (int i = 0; i < 20000; ++i)
        csv.addRow(i, v);
      csv.commit();
      ADD_FAILURE() << "the CSV export past the file size limit succeeded";
    } catch (const io::AtomicFileError& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(readText(p), "step,loss\n0,1\n"); // intact
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path()))
    ++entries;
  EXPECT_EQ(entries, 1u); // no temp file left behind
}

// /proc/self refuses new files even to root (the suite may run as root, for
// whom chmod 0500 would not stop anything).
TEST(FaultsFiles, UnwritableDirectoryWhileExportingIsAnErrorNamingThePath) {
  const fs::path p = "/proc/self/mantissa-export.csv";
  try {
    io::writeFileAtomically(p, "step,loss\n");
    FAIL() << "wrote into /proc/self";
  } catch (const io::AtomicFileError& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(telemetry::ScalarCsvWriter(p, {"loss"}), io::AtomicFileError);
}
