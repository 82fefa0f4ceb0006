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
#include <sys/stat.h>
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

// Someone who can write to the folder plants symlinks at every temporary name
// the old writer could pick (".NAME.tmp-PID-N") and at the new scheme's prefix:
// none is followed, the victim file is untouched.
TEST_F(TempDir, PlantedSymlinksAtTemporaryNamesAreNeverFollowed) {
  const fs::path victim = m_dir / "victim.txt";
  writeFileAtomically(victim, "precious");
  for (int n = 0; n < 8; ++n)
    fs::create_symlink(victim, m_dir / (".out.txt.tmp-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(n)));
  const fs::path out = m_dir / "out.txt";
  {
    AtomicFileWriter w(out);
    // Unpredictable: two writers never share a name, and it holds 16 random hex digits.
    AtomicFileWriter w2(out);
    EXPECT_NE(w.tempPath(), w2.tempPath());
    const std::string name = w.tempPath().filename().string();
    EXPECT_EQ(name.size(), std::string(".mantissa-0123456789abcdef.tmp").size()) << name;
    EXPECT_FALSE(fs::is_symlink(w.tempPath()));
    // Replace the temporary file with a symlink to the victim after it was opened:
    // the writer writes to the file it opened, not to whatever the name now is.
    fs::remove(w.tempPath());
    fs::create_symlink(victim, w.tempPath());
    w.stream() << "attacker-chosen";
    try {
      w.commit();
      FAIL() << "renamed a swapped temporary file into place";
    } catch (const AtomicFileError& e) {
      EXPECT_NE(std::string(e.what()).find("was replaced while writing"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(read(victim), "precious");
  EXPECT_FALSE(fs::exists(out));
  for (int n = 0; n < 1000; ++n)
    writeFileAtomically(out, "mine " + std::to_string(n));
  EXPECT_EQ(read(victim), "precious");
}

// A destination that is the user's own symlink is written through: the link
// stays, its target gets the content.
TEST_F(TempDir, SymlinkedTargetIsWrittenThrough) {
  fs::create_directories(m_dir / "real");
  const fs::path target = m_dir / "real" / "data.csv";
  writeFileAtomically(target, "old");
  const fs::path link = m_dir / "link.csv";
  fs::create_symlink("real/data.csv", link); // relative, as ln -s makes them
  writeFileAtomically(link, "new");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read(target), "new");
  EXPECT_EQ(entries(), 2u); // "real" and the link: no temp file anywhere
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir / "real"), fs::directory_iterator{}), 1);
  // A dangling link is refused, and nothing is created at its target.
  const fs::path dangling = m_dir / "dangling.csv";
  fs::create_symlink(m_dir / "nowhere" / "x.csv", dangling);
  try {
    writeFileAtomically(dangling, "x");
    FAIL() << "wrote through a dangling symlink";
  } catch (const AtomicFileError& e) {
    EXPECT_NE(std::string(e.what()).find("which does not exist"), std::string::npos) << e.what();
  }
}

TEST_F(TempDir, SymlinkOwnedBySomeoneElseIsRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give a symlink another owner (lchown)";
  const fs::path victim = m_dir / "victim.txt";
  writeFileAtomically(victim, "precious");
  const fs::path link = m_dir / "report.html";
  fs::create_symlink(victim, link);
  ASSERT_EQ(::lchown(link.c_str(), 65534, 65534), 0);
  try {
    writeFileAtomically(link, "x");
    FAIL() << "followed another user's symlink";
  } catch (const AtomicFileError& e) {
    EXPECT_NE(std::string(e.what()).find("symlink owned by another user"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read(victim), "precious");
}

TEST_F(TempDir, PermissionsOfAnExistingFileAreKept) {
  const fs::path p = m_dir / "secret.json";
  writeFileAtomically(p, "v1");
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  writeFileAtomically(p, "v2");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  writeFileAtomically(p, "v3");
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  // A new file: 0666 less the umask, as the shell's > makes it.
  const mode_t old = ::umask(027);
  writeFileAtomically(m_dir / "new.json", "x");
  ::umask(old);
  ASSERT_EQ(::stat((m_dir / "new.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(TempDir, MaximumLengthNameIsWritten) {
  const std::string name(255, 'n'); // NAME_MAX on Linux filesystems
  const fs::path p = m_dir / name;
  writeFileAtomically(p, "long");
  EXPECT_EQ(read(p), "long");
  writeFileAtomically(p, "longer");
  EXPECT_EQ(read(p), "longer");
  EXPECT_EQ(entries(), 1u);
}

// The documented choice: atomic replacement makes a new file, so another hard
// link to the old one keeps the old content.
TEST_F(TempDir, HardLinksKeepTheOldContent) {
  const fs::path p = m_dir / "a.txt";
  writeFileAtomically(p, "old");
  fs::create_hard_link(p, m_dir / "b.txt");
  writeFileAtomically(p, "new");
  EXPECT_EQ(read(p), "new");
  EXPECT_EQ(read(m_dir / "b.txt"), "old");
}

TEST_F(TempDir, NonRegularDestinationsAreRefused) {
  const fs::path fifo = m_dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    writeFileAtomically(fifo, "x");
    FAIL() << "replaced a FIFO";
  } catch (const AtomicFileError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(entries(), 1u);
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
