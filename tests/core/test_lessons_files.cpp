// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Lesson files are read at run time; a broken one shows an error in its own
// place and the others still load.
#include <mantissa/io/resource_paths.h>
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/lesson_set.h>
#include <mantissa/numeric/format.h>

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
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
  ASSERT_EQ(set.lessons.size(), 9u);
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

TEST(LessonFiles, ExplorerLinksNameAValueAndOptionallyAFormat) {
  TempDir dir;
  dir.write("a.md", "# A\n");
  dir.write("lessons.json", R"({"lessons": [
    {"title": "A", "file": "a.md", "explorer": ["0.1", {"value": "65504", "format": "FP16"}]},
    {"title": "B", "file": "a.md", "explorer": [{"value": "1", "format": "fp12"}]},
    {"title": "C", "file": "a.md", "explorer": [{"format": "fp16"}]},
    {"title": "D", "file": "a.md", "explorer": ["  "]},
    {"title": "E", "file": "a.md", "explorer": "0.1"}
  ]})");
  const auto set = loadLessons(dir.path);
  ASSERT_EQ(set.lessons.size(), 5u);
  ASSERT_TRUE(set.lessons[0].ok()) << set.lessons[0].error;
  EXPECT_EQ(set.lessons[0].explorer,
            (std::vector<ExplorerLink>{{"0.1", ""}, {"65504", "FP16"}}));
  EXPECT_NE(set.lessons[1].error.find("unknown Explorer format \"fp12\""), std::string::npos)
      << set.lessons[1].error;
  EXPECT_NE(set.lessons[2].error.find("\"explorer\" must be a list"), std::string::npos)
      << set.lessons[2].error;
  EXPECT_NE(set.lessons[3].error.find("\"explorer\" value is empty"), std::string::npos)
      << set.lessons[3].error;
  EXPECT_NE(set.lessons[4].error.find("\"explorer\" must be a list"), std::string::npos)
      << set.lessons[4].error;
}

TEST(LessonFiles, ShippedExplorerLinksNameKnownFormats) {
  const auto set = loadInstalledLessons();
  ASSERT_TRUE(set.error.empty()) << set.error;
  int withFormat = 0;
  for (const auto& l : set.lessons)
    for (const auto& link : l.explorer)
      if (!link.format.empty()) {
        EXPECT_TRUE(mantissa::numeric::parseFormatName(link.format)) << link.format;
        ++withFormat;
      }
  EXPECT_GT(withFormat, 0);
}

// A manifest must not make the page read outside its folder (/dev/zero would
// never end, another user's file is not a lesson).
TEST(LessonFiles, LessonFilesStayInsideTheLessonsFolder) {
  TempDir dir;
  fs::create_directories(dir.path / "sub");
  dir.write("sub/in.md", "# Inside\n");
  dir.write("lessons.json", R"({"lessons": [
    {"title": "A", "file": "/dev/zero.md"},
    {"title": "B", "file": "../outside.md"},
    {"title": "C", "file": "sub/../sub/in.md"},
    {"title": "D", "file": "sub/in.md"},
    {"title": "E", "file": ""},
    {"title": "F", "file": "sub.md"}
  ]})");
  fs::create_directories(dir.path / "sub.md"); // a directory named like a lesson
  const auto set = loadLessons(dir.path);
  ASSERT_EQ(set.lessons.size(), 6u);
  for (std::size_t i : {0u, 1u, 2u, 4u}) {
    SCOPED_TRACE(i);
    EXPECT_NE(set.lessons[i].error.find("must name a file inside the lessons folder"), std::string::npos)
        << set.lessons[i].error;
  }
  EXPECT_TRUE(set.lessons[3].ok()) << set.lessons[3].error;
  EXPECT_EQ(set.lessons[3].text, "# Inside\n");
  EXPECT_NE(set.lessons[5].error.find("not a regular file"), std::string::npos) << set.lessons[5].error;
}

TEST(LessonFiles, OversizedLessonFileIsRefused) {
  TempDir dir;
  dir.write("big.md", "# Big\n" + std::string(kMaxLessonBytes, 'x'));
  dir.write("lessons.json", R"({"lessons": [{"title": "Big", "file": "big.md"}]})");
  const auto set = loadLessons(dir.path);
  ASSERT_EQ(set.lessons.size(), 1u);
  EXPECT_NE(set.lessons[0].error.find("larger than 1 MiB"), std::string::npos) << set.lessons[0].error;
}

TEST(LessonFiles, InMemoryReaderGetsTheLessonPathsAndItsErrorsLandInPlace) {
  std::vector<fs::path> asked;
  const auto reader = [&](const fs::path& p) -> std::string {
    asked.push_back(p);
    if (p.filename() == "gone.md") throw std::runtime_error("cannot open the file");
    return "# From memory\n";
  };
  const auto set = parseLessons(R"({"lessons": [{"title": "A", "file": "a.md"},
                                                {"title": "B", "file": "gone.md"}]})",
                                "/lessons", reader);
  ASSERT_TRUE(set.error.empty()) << set.error;
  ASSERT_EQ(set.lessons.size(), 2u);
  EXPECT_EQ(asked, (std::vector<fs::path>{"/lessons/a.md", "/lessons/gone.md"}));
  EXPECT_EQ(set.lessons[0].text, "# From memory\n");
  EXPECT_EQ(set.lessons[1].error, "This lesson could not be loaded: /lessons/gone.md: cannot open the file");
  EXPECT_NE(parseLessons("[1, 2]", "/lessons", reader).error.find("must be an object with a \"lessons\" list"),
            std::string::npos);
}

TEST(LessonFiles, SlidesCutAtSectionHeadingsOutsideCode) {
  Lesson l;
  l.text = "# Title\n\nintro\n\n## One\n\na\n```\n## not a heading\n```\n## Two\nb\n";
  EXPECT_EQ(lessonSlides(l), (std::vector<std::string>{
                                 "# Title\n\nintro\n\n",
                                 "## One\n\na\n```\n## not a heading\n```\n",
                                 "## Two\nb\n"}));
  l.format = LessonFormat::Html;
  l.text = "<h1>T</h1><p>x</p><h2>A</h2><p>y</p>";
  EXPECT_EQ(lessonSlides(l), (std::vector<std::string>{"<h1>T</h1><p>x</p>", "<h2>A</h2><p>y</p>"}));
  l.error = "broken";
  EXPECT_TRUE(lessonSlides(l).empty());
  // Every shipped lesson is at least two slides, the first with its title.
  for (const auto& shipped : loadInstalledLessons().lessons) {
    const auto slides = lessonSlides(shipped);
    EXPECT_GE(slides.size(), 2u) << shipped.id;
    ASSERT_FALSE(slides.empty());
    EXPECT_EQ(slides.front().rfind("# ", 0), 0u) << shipped.id;
    std::string joined;
    for (const auto& s : slides) joined += s;
    EXPECT_EQ(joined, shipped.text) << shipped.id; // nothing lost or repeated
  }
}

TEST(LessonFiles, ExerciseBlocksGiveSheetSpecsOrALineNumberedError) {
  const auto sets = parseExerciseBlocks("# T\n\n```exercises\nformat: fp4-e2m1\nkind: encode # comment\n"
                                        "count: 5\nseed: 11\n\n```\n```\nformat: x\n```\n"
                                        "```exercises\nkind: round\nformat: fp8-e4m3\n```\n");
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].format, mantissa::numeric::FormatId::Fp4E2M1);
  EXPECT_EQ(sets[0].kind, ExerciseKind::Encode);
  EXPECT_EQ(sets[0].count, 5);
  EXPECT_EQ(sets[0].seed, 11u);
  EXPECT_EQ(sets[0].difficulty, 2);
  EXPECT_EQ(sets[1].kind, ExerciseKind::Round);
  EXPECT_EQ(sets[1].count, 10);
  const auto error = [](const std::string& text) {
    try {
      parseExerciseBlocks(text);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("# T\n```exercises\nformat: fp16\nkind: rnd\n```\n").rfind("line 4: unknown exercise kind \"rnd\"", 0), 0u);
  EXPECT_EQ(error("# T\n\n```exercises\nformat: fp16\n"), "line 3: the exercises block is not closed with ```");
  EXPECT_EQ(error("# T\n```exercises\nkind: round\n```\n"), "line 2: the exercises block has no \"format\"");
  EXPECT_EQ(error("# T\n```exercises\nformat: e8m0\nkind: round\n```\n"),
            "line 2: \"round\" exercises do not apply to e8m0");
  EXPECT_EQ(error("# T\n```exercises\nformat: fp16\nkind: round\ncount: 0\n```\n").rfind("line 5: \"count\"", 0), 0u);
  EXPECT_EQ(error("# T\n```exercises\nformat: fp16\nformat: bf16\n```\n"),
            "line 4: \"format\" is given twice (first on line 3)");
  EXPECT_EQ(error("# T\n```exercises\nfmt fp16\n```\n").rfind("line 3: expected \"key: value\"", 0), 0u);
  // In a lesson: the error names the file and the line; the other lessons load.
  TempDir dir;
  dir.write("lessons.json", R"({"lessons": [{"title": "A", "file": "a.md"}, {"title": "B", "file": "b.md"}]})");
  dir.write("a.md", "# A\n```exercises\nformat: fp16\nkind: nope\n```\n");
  dir.write("b.md", "# B\n```exercises\nformat: fp16\nkind: decode\n```\n");
  const auto set = loadLessons(dir.path);
  ASSERT_EQ(set.lessons.size(), 2u);
  EXPECT_NE(set.lessons[0].error.find("a.md: line 4: unknown exercise kind"), std::string::npos) << set.lessons[0].error;
  EXPECT_TRUE(set.lessons[1].ok()) << set.lessons[1].error;
  ASSERT_EQ(set.lessons[1].exercises.size(), 1u);
  EXPECT_EQ(set.lessons[1].exercises[0].kind, ExerciseKind::Decode);
}

// The shipped example folder uses only what the lesson documentation says.
TEST(LessonFiles, ExampleLessonFolderLoadsWithItsExerciseSets) {
  const auto set = loadLessons(mantissa::io::resourceDir() / "example-lessons");
  ASSERT_TRUE(set.error.empty()) << set.error;
  ASSERT_EQ(set.lessons.size(), 1u);
  const Lesson& l = set.lessons[0];
  EXPECT_TRUE(l.ok()) << l.error;
  EXPECT_EQ(l.demos, std::vector<std::string>{"ulp-ruler"});
  EXPECT_EQ(l.preset, "underflow");
  ASSERT_EQ(l.exercises.size(), 2u);
  EXPECT_EQ(l.exercises[0].format, mantissa::numeric::FormatId::Fp8E4M3);
  EXPECT_EQ(l.exercises[0].kind, ExerciseKind::Round);
  EXPECT_EQ(l.exercises[0].count, 10);
  EXPECT_EQ(l.exercises[1].format, mantissa::numeric::FormatId::Fp4E2M1);
  EXPECT_GE(lessonSlides(l).size(), 4u);
}

// "sweep": the Sweep dock's form, each key checked on its own and named in
// the message; the defaults are the dock's (the shakespeare-char GPT, 300
// steps, bf16, fp16, fp8-e4m3, mxfp4, every op class, one seed, budget 0.02).
TEST(LessonFiles, SweepKeyFillsTheFormOrNamesTheBadKey) {
  TempDir dir;
  for (char c = 'a'; c <= 'm'; ++c) dir.write(std::string(1, c) + ".md", "# A\n");
  dir.write("lessons.json", R"({"lessons": [
    {"title": "A", "file": "a.md", "sweep": {"model": "gpt:layers=1,heads=2,embd=32,ctx=32", "steps": 60,
      "formats": ["bf16", "mxfp4"], "ops": ["matmul-inputs", "softmax"], "seeds": 2, "budget": 0.05}},
    {"title": "B", "file": "b.md", "sweep": {}},
    {"title": "C", "file": "c.md", "sweep": 3},
    {"title": "D", "file": "d.md", "sweep": {"steps": 0}},
    {"title": "E", "file": "e.md", "sweep": {"seeds": 65}},
    {"title": "F", "file": "f.md", "sweep": {"budget": -1}},
    {"title": "G", "file": "g.md", "sweep": {"formats": []}},
    {"title": "H", "file": "h.md", "sweep": {"formats": ["bf16", "fp7"]}},
    {"title": "I", "file": "i.md", "sweep": {"ops": ["softmax", "nope"]}},
    {"title": "J", "file": "j.md", "sweep": {"model": "mlp:784-10"}},
    {"title": "K", "file": "k.md", "sweep": {"colour": "red"}},
    {"title": "L", "file": "l.md", "sweep": {"steps": 1.5}},
    {"title": "M", "file": "m.md", "sweep": {"ops": "softmax"}}
  ]})");
  const auto set = loadLessons(dir.path);
  ASSERT_EQ(set.lessons.size(), 13u);
  ASSERT_TRUE(set.lessons[0].ok()) << set.lessons[0].error;
  ASSERT_TRUE(set.lessons[0].sweep.has_value());
  EXPECT_EQ(*set.lessons[0].sweep, (LessonSweep{"gpt:layers=1,heads=2,embd=32,ctx=32", 60, {"bf16", "mxfp4"},
                                                {"matmul-inputs", "softmax"}, 2, 0.05}));
  ASSERT_TRUE(set.lessons[1].ok()) << set.lessons[1].error;
  EXPECT_EQ(*set.lessons[1].sweep, (LessonSweep{"gpt:layers=4,heads=4,embd=128,ctx=64", 300,
                                                {"bf16", "fp16", "fp8-e4m3", "mxfp4"}, {}, 1, 0.02}));
  const std::pair<int, std::vector<std::string>> bad[] = {
      {2, {"\"sweep\" must be an object"}},
      {3, {"\"sweep\": \"steps\"", "1 to 1000000"}},
      {4, {"\"sweep\": \"seeds\"", "1 to 64"}},
      {5, {"\"sweep\": \"budget\"", ">= 0"}},
      {6, {"\"sweep\": \"formats\"", "non-empty"}},
      {7, {"\"sweep\": \"formats\"", "fp7"}},
      {8, {"\"sweep\": \"ops\"", "nope"}},
      {9, {"\"sweep\": \"model\"", "not a GPT"}},
      {10, {"\"sweep\": unknown key \"colour\""}},
      {11, {"\"sweep\": \"steps\""}},
      {12, {"\"sweep\": \"ops\"", "list"}}};
  for (const auto& [index, parts] : bad) {
    const auto& l = set.lessons[std::size_t(index)];
    SCOPED_TRACE(l.title);
    EXPECT_FALSE(l.ok());
    EXPECT_FALSE(l.sweep.has_value());
    for (const auto& part : parts) EXPECT_NE(l.error.find(part), std::string::npos) << l.error;
  }
}

// The shipped lesson that opens a sweep names one small enough for a class.
TEST(LessonFiles, ShippedSweepIsSmall) {
  const auto set = loadInstalledLessons();
  ASSERT_TRUE(set.error.empty()) << set.error;
  int sweeps = 0;
  for (const auto& l : set.lessons) {
    if (!l.sweep) continue;
    ++sweeps;
    EXPECT_EQ(l.id, "precision-map");
    EXPECT_LE(l.sweep->steps, 500);
    EXPECT_FALSE(l.sweep->ops.empty());
  }
  EXPECT_EQ(sweeps, 1);
}
