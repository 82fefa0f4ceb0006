// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Atomic writes (temp + rename) and the scalar CSV export built on them.
#include <mantissa/io/atomic_file.h>
#include <mantissa/telemetry/csv_writer.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using mantissa::io::AtomicFileError;
using mantissa::io::AtomicFileWriter;
using mantissa::io::writeFileAtomically;

class TempDir : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("mantissa-atomic-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(m_dir), fs::directory_iterator{}));
  }
  fs::path m_dir;
};

TEST_F(TempDir, WritesAndReplacesWholeFiles) {
  const fs::path p = m_dir / "out.txt";
  writeFileAtomically(p, "first");
  EXPECT_EQ(read(p), "first");
  writeFileAtomically(p, "second, longer content");
  EXPECT_EQ(read(p), "second, longer content");
  EXPECT_EQ(entries(), 1u); // no temp file left behind
}

TEST_F(TempDir, UncommittedWriterLeavesTheOldFileAndNoTemp) {
  const fs::path p = m_dir / "keep.txt";
  writeFileAtomically(p, "old");
  {
    AtomicFileWriter w(p);
    w.stream() << "half-written new content";
    EXPECT_TRUE(fs::exists(w.tempPath()));
    EXPECT_EQ(w.tempPath().parent_path(), p.parent_path()); // same filesystem: rename is atomic
    EXPECT_EQ(read(p), "old");                              // not visible before commit
  }                                                         // destroyed without commit
  EXPECT_EQ(read(p), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(TempDir, ErrorsNameThePath) {
  const fs::path missing = m_dir / "no-such-dir" / "x.csv";
  try {
    writeFileAtomically(missing, "x");
    FAIL() << "no error";
  } catch (const AtomicFileError& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  // A directory in the way of the rename.
  fs::create_directories(m_dir / "adir");
  EXPECT_THROW(writeFileAtomically(m_dir / "adir", "x"), AtomicFileError);
  EXPECT_EQ(entries(), 1u); // the temp file was cleaned up
  AtomicFileWriter w(m_dir / "twice.txt");
  w.commit();
  EXPECT_THROW(w.commit(), AtomicFileError);
}

TEST_F(TempDir, CsvHasAHeaderAndOneRowPerStepThatReadBackExactly) {
  const fs::path p = m_dir / "scalars.csv";
  mantissa::telemetry::ScalarCsvWriter csv(p, {"loss", "loss scale, dynamic", "say \"hi\""});
  const double inf = std::numeric_limits<double>::infinity();
  const double rows[3][3] = {{0.1, 65536.0, 1e-8}, {std::nan(""), inf, -inf}, {2.5, 32768.0, -0.0}};
  for (int s = 0; s < 3; ++s)
    csv.addRow(s * 10, rows[s]);
  const double bad[2] = {1.0, 2.0};
  EXPECT_THROW(csv.addRow(30, bad), std::invalid_argument);
  EXPECT_FALSE(fs::exists(p)); // appears only at commit
  csv.commit();
  EXPECT_EQ(read(p), "step,loss,\"loss scale, dynamic\",\"say \"\"hi\"\"\"\n"
                     "0,0.1,65536,1e-08\n"
                     "10,nan,inf,-inf\n"
                     "20,2.5,32768,-0\n");
  EXPECT_EQ(std::stod(mantissa::telemetry::formatCsvNumber(0.1)), 0.1);
  EXPECT_EQ(std::stod(mantissa::telemetry::formatCsvNumber(1.0 / 3.0)), 1.0 / 3.0);
}

} // namespace
