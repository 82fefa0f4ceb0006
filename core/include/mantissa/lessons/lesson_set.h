// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The lesson texts, read at run time from <resources>/lessons/ so that a
// teacher can edit or add a lesson without recompiling.
//
// lessons/lessons.json:
//   { "lessons": [ { "id": "swamping", "title": "Update swamping",
//                    "file": "02-swamping.md",          // .md or .html, beside the manifest
//                    "demos": ["swamping", "swamp-fixes"], // demo_registry.h ids
//                    "preset": "swamping",               // optional: a dashboard preset
//                    "explorer": ["1.0001",                // optional: values to open in the Explorer,
//                                 {"value": "65504", "format": "fp16"}], // with a format selected
//                    "sweep": {"model": "gpt:layers=1,heads=2,embd=32,ctx=32", // optional: the
//                              "steps": 60, "formats": ["bf16", "mxfp4"],   // Sweep dock's
//                              "ops": ["matmul-inputs"], "seeds": 1,         // form, pre-filled
//                              "budget": 0.05} } ] }
//
// "sweep" keys (train/sweep.h; every key optional, none other allowed):
// "model" a GPT spec (default the shakespeare-char preset's), "steps" 1 to
// kMaxLessonSweepSteps (default 300), "formats" and "ops" non-empty lists of
// names the sweep knows (defaults: bf16, fp16, fp8-e4m3, mxfp4; every op
// class), "seeds" 1 to 64 (default 1), "budget" a number >= 0 (default 0.02).
// A bad value is the lesson's error, naming the key.
//
// "file" names a file inside the lessons folder (no absolute path, no "..");
// lesson files are at most kMaxLessonBytes each and kMaxLessonSetBytes
// together, read once each (a file listed twice is an error on the second
// entry); a manifest lists at most kMaxLessons lessons.
//
// A Markdown lesson may embed exercise sets (exercise.h), each a fenced block
// of "key: value" lines; the page shows a button that starts them:
//   ```exercises
//   format: fp8-e4m3     # a format name (required)
//   kind: round          # encode, decode, next, round, range, mx, loss-scale (required)
//   count: 5             # 1..kMaxSheetItems (default 10)
//   seed: 7              # default 1
//   difficulty: 2        # 1..3 (default 2)
//   ```
// "#" starts a comment; blank lines are ignored. At most kMaxExerciseSets a lesson.
//
// A broken manifest entry or lesson file (missing, empty, not UTF-8, no
// title heading, unknown demo or preset, a bad exercise block: "line N: ...")
// gives that lesson an error message naming the file and the problem; the
// other lessons load normally. Only an unreadable or malformed manifest
// fails the whole set (a JSON error says its line and column).

#include <mantissa/lessons/exercise.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::lessons {

enum class LessonFormat { Markdown, Html };

inline constexpr std::size_t kMaxLessonBytes = std::size_t{1} << 20;     // 1 MiB per file
inline constexpr std::size_t kMaxLessonSetBytes = std::size_t{32} << 20; // 32 MiB in all
inline constexpr std::size_t kMaxLessons = 1000;
inline constexpr std::size_t kMaxExerciseSets = 20;
inline constexpr int kMaxLessonSweepSteps = 1000000; // a lesson's sweep: steps per run

// A link into the Float Explorer: the text typed into its value field (a
// number, or "fp16:0x7bff" bits) and, when set, the format card to select.
struct ExplorerLink {
  std::string value;
  std::string format; // empty, or a name numeric::parseFormatName accepts
  bool operator==(const ExplorerLink&) const = default;
};

// A precision sweep a lesson opens in the Sweep dock (the "sweep" key).
struct LessonSweep {
  std::string model;                 // a GPT spec
  int steps = 300;                   // optimizer steps of every run
  std::vector<std::string> formats;  // non-empty
  std::vector<std::string> ops;      // empty: every op class a GPT has
  int seeds = 1;
  double budget = 0.02;
  bool operator==(const LessonSweep&) const = default;
};

struct Lesson {
  std::string id;
  std::string title;
  std::filesystem::path file; // absolute
  LessonFormat format = LessonFormat::Markdown;
  std::vector<std::string> demos;
  std::string preset;                 // empty: none
  std::vector<ExplorerLink> explorer;
  std::optional<LessonSweep> sweep;   // the "sweep" key, when given
  std::vector<SheetSpec> exercises;   // the ```exercises blocks, in order
  std::string text;                   // file contents; empty when error is set
  std::string error;                  // non-empty: show this in place of the lesson
  bool ok() const { return error.empty(); }
};

struct LessonSet {
  std::filesystem::path manifest;
  std::string error; // non-empty: the manifest itself could not be used
  std::vector<Lesson> lessons;
};

// Reads <dir>/lessons.json and every lesson file it lists. Never throws for
// bad content; errors are recorded as described above.
LessonSet loadLessons(const std::filesystem::path& dir);

// Reads one lesson file: its bytes, or throws std::runtime_error saying why not.
using LessonFileReader = std::function<std::string(const std::filesystem::path&)>;

// loadLessons after the manifest has been read: `manifestText` is the JSON of
// <dir>/lessons.json and lesson files come through `readFile` (the fuzz target
// passes an in-memory reader). Never throws for bad content.
LessonSet parseLessons(std::string_view manifestText, const std::filesystem::path& dir,
                       const LessonFileReader& readFile);

// The ```exercises blocks of a Markdown text. Throws std::runtime_error
// "line N: ..." (1-based, in the lesson file) for a bad block.
std::vector<SheetSpec> parseExerciseBlocks(std::string_view markdown);

// The lesson's text cut into slides for presenter mode: a Markdown lesson
// before each "## " heading (not inside ``` fences), an HTML lesson before
// each <h2>; the first slide keeps the title and introduction. A lesson with
// an error has no slides; a usable one at least one.
std::vector<std::string> lessonSlides(const Lesson& lesson);

// loadLessons(io::resourceDir() / "lessons"); a missing resource dir becomes
// the set's error.
LessonSet loadInstalledLessons();

} // namespace mantissa::lessons
