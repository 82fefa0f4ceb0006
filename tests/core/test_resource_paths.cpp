// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Resource lookup: installed prefix first, the source tree only for a binary
// that has no share/mantissa beside it, the environment over both.

#include <mantissa/io/resource_paths.h>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

namespace fs = std::filesystem;
using mantissa::io::ResourceError;
using mantissa::io::ResourceSearch;
using mantissa::io::resolveResourceDir;

namespace {

// A scratch tree with an installed prefix, a build tree and a source tree.
class ResourceTree : public ::testing::Test {
protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() /
             ("mantissa-resources-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_root / "prefix/bin");
    fs::create_directories(m_root / "prefix/share/mantissa/lessons");
    fs::create_directories(m_root / "build/app");
    fs::create_directories(m_root / "src/resources/lessons");
    fs::create_directories(m_root / "teacher");
    touch(m_root / "prefix/bin/mantissa");
    touch(m_root / "build/app/mantissa");
  }
  void TearDown() override { fs::remove_all(m_root); }

  static void touch(const fs::path& p) { std::ofstream(p) << "x"; }

  ResourceSearch search(const fs::path& exe) const {
    return {std::nullopt, exe, "../share/mantissa", m_root / "src/resources"};
  }

  fs::path m_root;
};

} // namespace

TEST_F(ResourceTree, InstalledBinaryUsesItsPrefixEvenWhenTheSourceTreeExists) {
  EXPECT_EQ(resolveResourceDir(search(m_root / "prefix/bin/mantissa")),
            m_root / "prefix/share/mantissa");
}

TEST_F(ResourceTree, BuildTreeBinaryFallsBackToTheSourceTree) {
  EXPECT_EQ(resolveResourceDir(search(m_root / "build/app/mantissa")), m_root / "src/resources");
}

TEST_F(ResourceTree, EnvironmentWinsOverTheInstalledPrefix) {
  auto s = search(m_root / "prefix/bin/mantissa");
  s.environment = m_root / "teacher";
  EXPECT_EQ(resolveResourceDir(s), m_root / "teacher");
}

TEST_F(ResourceTree, EmptyEnvironmentIsIgnored) {
  auto s = search(m_root / "prefix/bin/mantissa");
  s.environment = fs::path();
  EXPECT_EQ(resolveResourceDir(s), m_root / "prefix/share/mantissa");
}

TEST_F(ResourceTree, EnvironmentThatIsNotADirectoryIsAnErrorNamingIt) {
  auto s = search(m_root / "prefix/bin/mantissa");
  s.environment = m_root / "no-such-dir";
  try {
    resolveResourceDir(s);
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("MANTISSA_RESOURCE_DIR"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no-such-dir"), std::string::npos) << e.what();
  }
}

TEST_F(ResourceTree, NothingFoundListsEveryPlaceLookedAt) {
  ResourceSearch s{std::nullopt, m_root / "build/app/mantissa", "../share/mantissa",
                   m_root / "gone/resources"};
  try {
    resolveResourceDir(s);
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find((m_root / "build/share/mantissa").string()), std::string::npos) << msg;
    EXPECT_NE(msg.find((m_root / "gone/resources").string()), std::string::npos) << msg;
  }
}

TEST_F(ResourceTree, MissingExecutableLeavesTheOtherCandidates) {
  EXPECT_EQ(resolveResourceDir(search(fs::path())), m_root / "src/resources");
}

TEST(ResourcePaths, ThisProcessIsFoundThroughProcSelfExe) {
  const auto s = mantissa::io::processResourceSearch();
  // The name of the executable this file is linked into, as CMake made it.
  EXPECT_EQ(s.executable.filename(), MANTISSA_TEST_EXECUTABLE);
  EXPECT_TRUE(s.executable.is_absolute());
  EXPECT_EQ(s.relativeToBinDir, fs::path("../share/mantissa")); // GNUInstallDirs defaults
}

TEST(ResourcePaths, TestBinaryInTheBuildTreeFindsTheSourceResources) {
  const fs::path sourceResources = fs::path(MANTISSA_TEST_SOURCE_DIR) / "resources";
  ASSERT_FALSE(std::getenv("MANTISSA_RESOURCE_DIR")) << "unset MANTISSA_RESOURCE_DIR to run this test";
  EXPECT_TRUE(fs::equivalent(mantissa::io::resourceDir(), sourceResources));
  EXPECT_TRUE(fs::equivalent(mantissa::io::resourcePath("data/README.md"),
                             sourceResources / "data/README.md"));
}

TEST(ResourcePaths, ResourcePathRejectsEscapesAndNamesMissingFiles) {
  EXPECT_THROW(mantissa::io::resourcePath("../CMakeLists.txt"), ResourceError);
  EXPECT_THROW(mantissa::io::resourcePath("data/../../CMakeLists.txt"), ResourceError);
  EXPECT_THROW(mantissa::io::resourcePath("/etc/passwd"), ResourceError);
  EXPECT_THROW(mantissa::io::resourcePath(""), ResourceError);
  try {
    mantissa::io::resourcePath("lessons/no-such-lesson.md");
    FAIL() << "expected ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("lessons/no-such-lesson.md"), std::string::npos) << e.what();
  }
}
