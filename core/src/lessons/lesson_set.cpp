// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/lessons/lesson_set.h>

#include <mantissa/io/json_text.h>
#include <mantissa/io/resource_paths.h>
#include <mantissa/lessons/demo_registry.h>
#include <mantissa/numeric/format.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/presets.h>
#include <mantissa/train/sweep.h>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace mantissa::lessons {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool validUtf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= s.size())
      return false;
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) >> 6) != 0x2) return false;
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

// Empty string when the text is a usable lesson, else what is wrong with it.
std::string checkText(const std::string& text, LessonFormat format) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return "the file is empty";
  if (!validUtf8(text)) return "the file is not valid UTF-8 text";
  if (format == LessonFormat::Markdown) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (text.compare(first, 2, "# ") != 0)
      return "a Markdown lesson must start with a title line \"# ...\"";
  } else if (text.find("<h1") == std::string::npos && text.find("<H1") == std::string::npos) {
    return "an HTML lesson must have an <h1> title";
  }
  return {};
}

// "explorer": a list of value strings or {"value": ..., "format": ...} objects.
std::vector<ExplorerLink> explorerLinks(const json& entry) {
  std::vector<ExplorerLink> out;
  if (!entry.contains("explorer")) return out;
  const auto& v = entry.at("explorer");
  const char* shape = "\"explorer\" must be a list of values or {\"value\", \"format\"} objects";
  if (!v.is_array()) throw std::runtime_error(shape);
  for (const auto& item : v) {
    ExplorerLink link;
    if (item.is_string()) {
      link.value = item.get<std::string>();
    } else if (item.is_object() && item.contains("value") && item.at("value").is_string()) {
      link.value = item.at("value").get<std::string>();
      if (item.contains("format")) {
        if (!item.at("format").is_string()) throw std::runtime_error(shape);
        link.format = item.at("format").get<std::string>();
        if (!numeric::parseFormatName(link.format))
          throw std::runtime_error("unknown Explorer format \"" + link.format + "\"");
      }
    } else {
      throw std::runtime_error(shape);
    }
    if (link.value.find_first_not_of(" \t") == std::string::npos)
      throw std::runtime_error("an \"explorer\" value is empty");
    out.push_back(std::move(link));
  }
  return out;
}

// "sweep": the Sweep dock's form. Each key is checked on its own, so that the
// message names it; formats and ops are checked by the sweep itself, on the
// smallest GPT (the names do not depend on the model's size).
LessonSweep lessonSweep(const json& v) {
  const auto bad = [](const std::string& key, const std::string& what) {
    return std::runtime_error("\"sweep\": \"" + key + "\" " + what);
  };
  if (!v.is_object())
    throw std::runtime_error("\"sweep\" must be an object with any of \"model\", \"steps\", \"formats\", "
                             "\"ops\", \"seeds\", \"budget\"");
  const train::RunConfig preset = train::findPreset("shakespeare-char")->runs.front();
  LessonSweep sweep;
  sweep.model = preset.model;
  sweep.formats = train::SweepOptions{}.formats;
  for (const auto& [key, value] : v.items()) {
    if (key == "model") {
      if (!value.is_string()) throw bad(key, "must be a GPT spec such as \"gpt:layers=1,heads=2,embd=32,ctx=32\"");
      sweep.model = value.get<std::string>();
      try {
        model::parseGptSpec(sweep.model);
      } catch (const std::exception& e) {
        throw bad(key, std::string("is not a GPT: ") + e.what());
      }
    } else if (key == "steps" || key == "seeds") {
      const long long hi = key == "steps" ? kMaxLessonSweepSteps : 64;
      if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > hi)
        throw bad(key, "must be a whole number from 1 to " + std::to_string(hi));
      (key == "steps" ? sweep.steps : sweep.seeds) = static_cast<int>(value.get<long long>());
    } else if (key == "budget") {
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
        throw bad(key, "must be a number >= 0 (the largest change in val_loss the chosen policy may cost)");
      sweep.budget = value.get<double>();
    } else if (key == "formats" || key == "ops") {
      if (!value.is_array() || value.empty())
        throw bad(key, "must be a non-empty list of names");
      std::vector<std::string> names;
      for (const auto& n : value) {
        if (!n.is_string()) throw bad(key, "must be a non-empty list of names");
        names.push_back(n.get<std::string>());
      }
      (key == "formats" ? sweep.formats : sweep.ops) = std::move(names);
    } else {
      throw std::runtime_error("\"sweep\": unknown key \"" + key.substr(0, 40) +
                               "\" (use model, steps, formats, ops, seeds, budget)");
    }
  }
  train::SweepOptions check;
  check.config = preset;
  check.config.model = "gpt:layers=1,heads=1,embd=8,ctx=8";
  check.formats = sweep.formats;
  check.ops = sweep.ops;
  try {
    train::sweepProbes(check);
  } catch (const train::SweepError& e) {
    std::string what = e.what();
    for (const char* key : {"formats", "ops"})
      if (what.rfind(std::string("--") + key + ": ", 0) == 0)
        throw bad(key, what.substr(std::string(key).size() + 4));
    throw std::runtime_error("\"sweep\": " + what);
  }
  return sweep;
}

// A lesson file must stay inside the lessons folder: a manifest copied from
// elsewhere cannot make the page read /dev/zero or a file of another user.
fs::path lessonPath(const fs::path& dir, const std::string& name) {
  const fs::path rel(name);
  if (name.empty() || rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    throw std::runtime_error("\"file\" must name a file inside the lessons folder, not \"" + name + "\"");
  for (const auto& part : rel)
    if (part == "..")
      throw std::runtime_error("\"file\" must name a file inside the lessons folder, not \"" + name + "\"");
  return dir / rel;
}

std::string readLessonFile(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw std::runtime_error("cannot open the file (it does not exist)");
  if (!fs::is_regular_file(status)) throw std::runtime_error("cannot open the file (not a regular file)");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxLessonBytes)
    throw std::runtime_error("the file is larger than " + std::to_string(kMaxLessonBytes >> 20) + " MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> stringList(const json& entry, const char* key) {
  std::vector<std::string> out;
  if (!entry.contains(key)) return out;
  const auto& v = entry.at(key);
  if (!v.is_array()) throw std::runtime_error(std::string("\"") + key + "\" must be a list of strings");
  for (const auto& s : v) {
    if (!s.is_string()) throw std::runtime_error(std::string("\"") + key + "\" must be a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}


std::string trimmedText(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

[[noreturn]] void lineError(std::size_t line, const std::string& what) {
  throw std::runtime_error("line " + std::to_string(line) + ": " + what);
}

long long blockInteger(std::size_t line, const std::string& key, const std::string& value, long long lo,
                       long long hi) {
  long long v = 0;
  const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
  if (r.ec != std::errc() || r.ptr != value.data() + value.size() || v < lo || v > hi)
    lineError(line, "\"" + key + "\" must be a whole number from " + std::to_string(lo) + " to " +
                        std::to_string(hi) + ", not \"" + value.substr(0, 40) + "\"");
  return v;
}

} // namespace

std::vector<SheetSpec> parseExerciseBlocks(std::string_view text) {
  std::vector<SheetSpec> sets;
  bool fenced = false, inBlock = false;
  std::size_t opened = 0, lineNo = 0;
  SheetSpec spec;
  bool hasFormat = false, hasKind = false;
  std::map<std::string, std::size_t> seen;
  for (std::size_t at = 0; at <= text.size();) {
    const auto end = std::min(text.find('\n', at), text.size());
    const std::string_view raw = text.substr(at, end - at);
    at = end + 1;
    ++lineNo;
    const std::string line = trimmedText(raw);
    if (line.rfind("```", 0) == 0) {
      if (inBlock) {
        if (!hasFormat) lineError(opened, "the exercises block has no \"format\"");
        if (!hasKind) lineError(opened, "the exercises block has no \"kind\"");
        if (!kindAppliesTo(spec.kind, spec.format))
          lineError(opened, "\"" + std::string(exerciseKindName(spec.kind)) + "\" exercises do not apply to " +
                                std::string(numeric::formatInfo(spec.format).name));
        if (sets.size() == kMaxExerciseSets)
          lineError(opened, "more than " + std::to_string(kMaxExerciseSets) + " exercise blocks in one lesson");
        sets.push_back(spec);
        inBlock = fenced = false;
      } else if (fenced) {
        fenced = false;
      } else if (trimmedText(std::string_view(line).substr(3)) == "exercises") {
        inBlock = fenced = true;
        opened = lineNo;
        spec = SheetSpec{};
        spec.count = 10;
        hasFormat = hasKind = false;
        seen.clear();
      } else {
        fenced = true;
      }
      if (end == text.size()) break;
      continue;
    }
    if (inBlock) {
      std::string content = line.substr(0, line.find('#'));
      content = trimmedText(content);
      if (!content.empty()) {
        const auto colon = content.find(':');
        if (colon == std::string::npos)
          lineError(lineNo, "expected \"key: value\" in the exercises block, not \"" + content.substr(0, 40) + "\"");
        const std::string key = trimmedText(std::string_view(content).substr(0, colon));
        const std::string value = trimmedText(std::string_view(content).substr(colon + 1));
        if (const auto it = seen.find(key); it != seen.end())
          lineError(lineNo, "\"" + key.substr(0, 40) + "\" is given twice (first on line " + std::to_string(it->second) + ")");
        seen.emplace(key, lineNo);
        if (key == "format") {
          const auto id = numeric::parseFormatName(value);
          if (!id) lineError(lineNo, "unknown format \"" + value.substr(0, 40) + "\"");
          spec.format = *id;
          hasFormat = true;
        } else if (key == "kind") {
          const auto kind = parseExerciseKind(value);
          if (!kind) {
            std::string names;
            for (ExerciseKind k : allExerciseKinds()) names += (names.empty() ? "" : ", ") + std::string(exerciseKindName(k));
            lineError(lineNo, "unknown exercise kind \"" + value.substr(0, 40) + "\" (known: " + names + ")");
          }
          spec.kind = *kind;
          hasKind = true;
        } else if (key == "count") {
          spec.count = static_cast<int>(blockInteger(lineNo, key, value, 1, kMaxSheetItems));
        } else if (key == "seed") {
          spec.seed = static_cast<std::uint64_t>(blockInteger(lineNo, key, value, 0, 1LL << 62));
        } else if (key == "difficulty") {
          spec.difficulty = static_cast<int>(blockInteger(lineNo, key, value, kMinDifficulty, kMaxDifficulty));
        } else {
          lineError(lineNo, "unknown key \"" + key.substr(0, 40) + "\" (use format, kind, count, seed, difficulty)");
        }
      }
    }
    if (end == text.size()) break;
  }
  if (inBlock) lineError(opened, "the exercises block is not closed with ```");
  return sets;
}

namespace {

// What the entries read so far hold: each file is read once, and the files
// together are bounded.
struct ReadState {
  std::map<fs::path, std::size_t> lessonOfFile; // file -> index of the entry that read it
  std::uint64_t bytes = 0;
};

Lesson readEntry(const json& entry, const fs::path& dir, std::size_t index,
                 const LessonFileReader& readFile, ReadState& state) {
  Lesson l;
  l.id = "lesson " + std::to_string(index + 1);
  l.title = l.id;
  try {
    if (!entry.is_object()) throw std::runtime_error("the manifest entry is not an object");
    if (!entry.contains("file") || !entry.at("file").is_string())
      throw std::runtime_error("the manifest entry has no \"file\"");
    l.file = lessonPath(dir, entry.at("file").get<std::string>());
    if (entry.contains("id") && entry.at("id").is_string()) l.id = entry.at("id").get<std::string>();
    if (entry.contains("title") && entry.at("title").is_string())
      l.title = entry.at("title").get<std::string>();
    else
      throw std::runtime_error("the manifest entry has no \"title\"");
    const auto ext = l.file.extension().string();
    if (ext == ".md") l.format = LessonFormat::Markdown;
    else if (ext == ".html" || ext == ".htm") l.format = LessonFormat::Html;
    else throw std::runtime_error("unknown lesson file type \"" + ext + "\" (use .md or .html)");
    l.demos = stringList(entry, "demos");
    for (const auto& d : l.demos)
      if (!isDemoId(d)) throw std::runtime_error("unknown demo \"" + d + "\"");
    if (entry.contains("preset")) {
      if (!entry.at("preset").is_string()) throw std::runtime_error("\"preset\" must be a string");
      l.preset = entry.at("preset").get<std::string>();
      if (train::findPreset(l.preset) == nullptr)
        throw std::runtime_error("unknown dashboard preset \"" + l.preset + "\"");
    }
    l.explorer = explorerLinks(entry);
    if (entry.contains("sweep")) l.sweep = lessonSweep(entry.at("sweep"));
    const fs::path key = l.file.lexically_normal();
    if (const auto it = state.lessonOfFile.find(key); it != state.lessonOfFile.end())
      throw std::runtime_error("lessons.json already lists this file as lesson " +
                               std::to_string(it->second + 1) + "; each file is one lesson");
    state.lessonOfFile.emplace(key, index);
    std::string text = readFile(l.file);
    if (text.size() > kMaxLessonBytes)
      throw std::runtime_error("the file is larger than " + std::to_string(kMaxLessonBytes >> 20) + " MiB");
    if (state.bytes + text.size() > kMaxLessonSetBytes)
      throw std::runtime_error("the lessons together are larger than " +
                               std::to_string(kMaxLessonSetBytes >> 20) + " MiB");
    state.bytes += text.size();
    const auto problem = checkText(text, l.format);
    if (!problem.empty()) throw std::runtime_error(problem);
    if (l.format == LessonFormat::Markdown) l.exercises = parseExerciseBlocks(text);
    l.text = std::move(text);
  } catch (const std::exception& e) {
    const auto where = l.file.empty() ? dir / "lessons.json" : l.file;
    l.error = "This lesson could not be loaded: " + where.string() + ": " + e.what();
    l.text.clear();
  }
  return l;
}

} // namespace

LessonSet loadLessons(const fs::path& dir) {
  const auto manifestPath = dir / "lessons.json";
  std::string text;
  try {
    text = readLessonFile(manifestPath);
  } catch (const std::exception& e) {
    LessonSet set;
    set.manifest = manifestPath;
    set.error = "cannot open the lesson list " + manifestPath.string() + ": " + e.what();
    return set;
  }
  return parseLessons(text, dir, readLessonFile);
}

LessonSet parseLessons(std::string_view manifestText, const fs::path& dir,
                       const LessonFileReader& readFile) {
  LessonSet set;
  set.manifest = dir / "lessons.json";
  json manifest;
  try {
    manifest = io::parseJsonText(manifestText);
  } catch (const io::JsonTextError& e) {
    set.error = set.manifest.string() + " is not valid JSON: " + e.what();
    return set;
  }
  if (!manifest.is_object() || !manifest.contains("lessons") || !manifest.at("lessons").is_array()) {
    set.error = set.manifest.string() + " must be an object with a \"lessons\" list";
    return set;
  }
  const auto& list = manifest.at("lessons");
  if (list.size() > kMaxLessons) {
    set.error = set.manifest.string() + " lists " + std::to_string(list.size()) +
                " lessons, more than the limit of " + std::to_string(kMaxLessons);
    return set;
  }
  ReadState state;
  for (std::size_t i = 0; i < list.size(); ++i)
    set.lessons.push_back(readEntry(list[i], dir, i, readFile, state));
  return set;
}

std::vector<std::string> lessonSlides(const Lesson& lesson) {
  std::vector<std::string> slides;
  if (!lesson.ok() || lesson.text.empty()) return slides;
  const std::string& t = lesson.text;
  std::vector<std::size_t> cuts{0};
  if (lesson.format == LessonFormat::Markdown) {
    bool fenced = false;
    for (std::size_t line = 0; line < t.size();) {
      const auto end = std::min(t.find('\n', line), t.size());
      if (t.compare(line, 3, "```") == 0) fenced = !fenced;
      else if (!fenced && line > 0 && t.compare(line, 3, "## ") == 0) cuts.push_back(line);
      line = end + 1;
    }
  } else {
    for (std::size_t at = t.find("<h2", 1); at != std::string::npos; at = t.find("<h2", at + 1))
      cuts.push_back(at);
  }
  cuts.push_back(t.size());
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    auto slide = t.substr(cuts[i], cuts[i + 1] - cuts[i]);
    if (slide.find_first_not_of(" \t\r\n") != std::string::npos) slides.push_back(std::move(slide));
  }
  if (slides.empty()) slides.push_back(t);
  return slides;
}

LessonSet loadInstalledLessons() {
  try {
    return loadLessons(io::resourceDir() / "lessons");
  } catch (const io::ResourceError& e) {
    LessonSet set;
    set.error = e.what();
    return set;
  }
}

} // namespace mantissa::lessons
