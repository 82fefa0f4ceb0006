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
//                    "explorer": ["1.0001", "65504"] } ] } // optional: values to open in the Explorer
//
// A broken manifest entry or lesson file (missing, empty, not UTF-8, no
// title heading, unknown demo or preset) gives that lesson an error message
// naming the file and the problem; the other lessons load normally. Only an
// unreadable or malformed manifest fails the whole set.

#include <filesystem>
#include <string>
#include <vector>

namespace mantissa::lessons {

enum class LessonFormat { Markdown, Html };

struct Lesson {
  std::string id;
  std::string title;
  std::filesystem::path file; // absolute
  LessonFormat format = LessonFormat::Markdown;
  std::vector<std::string> demos;
  std::string preset;                 // empty: none
  std::vector<std::string> explorer;  // values as text
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

// loadLessons(io::resourceDir() / "lessons"); a missing resource dir becomes
// the set's error.
LessonSet loadInstalledLessons();

} // namespace mantissa::lessons
