// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Lesson folders (a teacher's lessons.json and its Markdown/HTML files):
// lessons::parseLessons with an in-memory reader. The input is the manifest,
// then the lesson files, separated by lines "=====": the k-th file the loader
// asks for gets part (k mod parts) + 1, or "cannot open" when there is none.
//
// Properties (a failed one aborts): nothing throws; a set error leaves no
// lessons; every lesson is either usable (text as read, demos, preset and
// Explorer formats all known, the file inside the folder, a Markdown text
// starting with "# ", every embedded exercise set one the generator accepts,
// a "sweep" with a GPT, steps, seeds and budget in range and its formats and
// ops ones the sweep accepts)
// or carries an error naming its file, with no text.

#include <mantissa/lessons/demo_registry.h>
#include <mantissa/lessons/lesson_set.h>
#include <mantissa/model/gpt.h>
#include <mantissa/numeric/format.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/sweep.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kSeparator = "\n=====\n";

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(kSeparator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return parts;
    text.remove_prefix(at + kSeparator.size());
  }
}

void check(bool ok) {
  if (!ok)
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa;
  namespace fs = std::filesystem;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto parts = split(input);
  const fs::path dir = "/lessons";
  std::size_t asked = 0;
  std::vector<std::string> served;
  const auto reader = [&](const fs::path&) -> std::string {
    if (parts.size() < 2)
      throw std::runtime_error("cannot open the file");
    served.emplace_back(parts[1 + asked++ % (parts.size() - 1)]);
    return served.back();
  };

  lessons::LessonSet set;
  try {
    set = lessons::parseLessons(parts[0], dir, reader);
  } catch (...) {
    std::abort(); // documented never to throw for bad content
  }
  check(set.manifest == dir / "lessons.json");
  if (!set.error.empty()) {
    check(set.lessons.empty());
    return 0;
  }
  check(asked <= set.lessons.size());
  for (const auto& l : set.lessons) {
    if (!l.ok()) {
      check(l.text.empty());
      check(l.error.rfind("This lesson could not be loaded: /lessons", 0) == 0);
      continue;
    }
    // Inside the folder: the path is dir / a relative name without "..".
    check(l.file.string().rfind("/lessons/", 0) == 0);
    for (const auto& part : l.file.lexically_relative(dir))
      check(part != ".." && part != "/");
    check(!l.text.empty() && l.text.size() <= lessons::kMaxLessonBytes);
    bool wasServed = false;
    for (const auto& s : served)
      wasServed = wasServed || s == l.text;
    check(wasServed);
    if (l.format == lessons::LessonFormat::Markdown)
      check(l.text.compare(l.text.find_first_not_of(" \t\r\n"), 2, "# ") == 0);
    for (const auto& d : l.demos)
      check(lessons::isDemoId(d));
    check(l.preset.empty() || train::findPreset(l.preset) != nullptr);
    check(l.exercises.size() <= lessons::kMaxExerciseSets);
    check(l.format == lessons::LessonFormat::Markdown || l.exercises.empty());
    for (const auto& spec : l.exercises) {
      check(lessons::kindAppliesTo(spec.kind, spec.format));
      check(spec.count >= 1 && spec.count <= lessons::kMaxSheetItems);
      check(spec.difficulty >= lessons::kMinDifficulty && spec.difficulty <= lessons::kMaxDifficulty);
    }
    if (l.sweep) {
      const auto& s = *l.sweep;
      check(s.steps >= 1 && s.steps <= lessons::kMaxLessonSweepSteps);
      check(s.seeds >= 1 && s.seeds <= 64);
      check(std::isfinite(s.budget) && s.budget >= 0);
      check(!s.formats.empty());
      train::SweepOptions o;
      o.config = train::findPreset("shakespeare-char")->runs.front();
      o.config.model = "gpt:layers=1,heads=1,embd=8,ctx=8";
      o.formats = s.formats;
      o.ops = s.ops;
      try {
        model::parseGptSpec(s.model);
        train::sweepProbes(o);
      } catch (...) {
        std::abort(); // an accepted sweep is one the dock can start
      }
    }
    for (const auto& link : l.explorer) {
      check(link.value.find_first_not_of(" \t") != std::string::npos);
      check(link.format.empty() || numeric::parseFormatName(link.format).has_value());
    }
  }
  return 0;
}
