// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Lesson files are read at run time; a broken one shows an error in its own
// place and the others still load.
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/lesson_set.h>

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

using namespace mantissa::lessons;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("mantissa-lessons-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
  }
};

} // namespace

TEST(LessonFiles, ShippedLessonsAllLoad) {
  const auto set = loadInstalledLessons();
  ASSERT_TRUE(set.error.empty()) << set.error;
  ASSERT_EQ(set.lessons.size(), 6u);
  for (const auto& l : set.lessons) {
    SCOPED_TRACE(l.id);
    EXPECT_TRUE(l.ok()) << l.error;
    EXPECT_FALSE(l.demos.empty());
    EXPECT_NE(l.text.find("# "), std::string::npos);
    for (const auto& d : l.demos) EXPECT_TRUE(isDemoId(d));
  }
}

TEST(LessonFiles, BrokenLessonIsReportedInItsPlaceOnly) {
  TempDir dir;
  dir.write("good.md", "# Good\n\ntext\n");
  dir.write("untitled.md", "no heading here\n");
  dir.write("empty.md", "  \n");
  dir.write("bad-utf8.md", "# T\n\xff\xfe\n");
  dir.write("page.html", "<html><h1>Page</h1></html>");
  dir.write("lessons.json", R"({"lessons": [
    {"title": "A", "file": "good.md", "demos": ["swamping"]},
    {"title": "B", "file": "untitled.md"},
    {"title": "C", "file": "missing.md"},
    {"title": "D", "file": "good.md", "demos": ["no-such-demo"]},
    {"title": "E", "file": "empty.md"},
    {"title": "F", "file": "bad-utf8.md"},
    {"title": "G", "file": "good.md", "preset": "no-such-preset"},
    {"file": "good.md"},
    {"title": "I", "file": "page.html", "preset": "underflow"}
  ]})");
  const auto set = loadLessons(dir.path);
  ASSERT_TRUE(set.error.empty()) << set.error;
  ASSERT_EQ(set.lessons.size(), 9u);
  EXPECT_TRUE(set.lessons[0].ok()) << set.lessons[0].error;
  EXPECT_EQ(set.lessons[0].text, "# Good\n\ntext\n");
  const auto hasError = [&](std::size_t i, const std::string& what) {
    SCOPED_TRACE(i);
    EXPECT_FALSE(set.lessons[i].ok());
    EXPECT_TRUE(set.lessons[i].text.empty());
    EXPECT_NE(set.lessons[i].error.find(what), std::string::npos) << set.lessons[i].error;
  };
  hasError(1, "untitled.md: a Markdown lesson must start with a title");
  hasError(2, "missing.md: cannot open");
  hasError(3, "unknown demo \"no-such-demo\"");
  hasError(4, "empty.md: the file is empty");
  hasError(5, "not valid UTF-8");
  hasError(6, "unknown dashboard preset \"no-such-preset\"");
  hasError(7, "no \"title\"");
  EXPECT_TRUE(set.lessons[8].ok()) << set.lessons[8].error;
  EXPECT_EQ(set.lessons[8].format, LessonFormat::Html);
  EXPECT_EQ(set.lessons[8].title, "I");
}

TEST(LessonFiles, MalformedManifestFailsTheSetWithItsName) {
  TempDir dir;
  dir.write("lessons.json", "{\"lessons\": [");
  const auto set = loadLessons(dir.path);
  EXPECT_TRUE(set.lessons.empty());
  EXPECT_NE(set.error.find("lessons.json is not valid JSON"), std::string::npos) << set.error;
  EXPECT_NE(loadLessons(dir.path / "nowhere").error.find("cannot open the lesson list"),
            std::string::npos);
}
