// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/safetensors_index.h>

#include <mantissa/io/json_text.h>
#include <mantissa/io/regular_file.h>

#include <algorithm>

namespace mantissa::io {
namespace {

std::string shown(const std::string& s) {
  std::string out;
  for (char ch : s.substr(0, 200))
    out += (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ? '?' : ch;
  return out + (s.size() > 200 ? "..." : "");
}

} // namespace

SafetensorsIndex parseSafetensorsIndex(std::string_view json, const std::string& what) {
  nlohmann::json j;
  try {
    j = parseJsonText(json);
  } catch (const JsonTextError& e) {
    throw SafetensorsIndexError(what + ": " + e.what());
  }
  if (!j.is_object())
    throw SafetensorsIndexError(what + ": not a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "metadata" && key != "weight_map")
      throw SafetensorsIndexError(what + ": unknown key \"" + shown(key) +
                                  "\" (an index holds \"metadata\" and \"weight_map\")");
  const auto map = j.find("weight_map");
  if (map == j.end() || !map->is_object())
    throw SafetensorsIndexError(what + ": \"weight_map\" is missing or not an object");
  SafetensorsIndex index;
  for (const auto& [tensor, shard] : map->items()) {
    if (!shard.is_string())
      throw SafetensorsIndexError(what + ": weight_map[\"" + shown(tensor) +
                                  "\"] is not a string (a shard's file name)");
    const std::string name = shard.get<std::string>();
    if (name.empty() || name == "." || name == ".." ||
        name.find_first_of(std::string("/\\\0", 3)) != std::string::npos)
      throw SafetensorsIndexError(what + ": weight_map[\"" + shown(tensor) + "\"] names \"" +
                                  shown(name) +
                                  "\": a shard must be a file name beside the index, with no "
                                  "'/', '\\' or \"..\"");
    index.weightMap.emplace_back(tensor, name);
    index.shards.push_back(name);
  }
  std::sort(index.weightMap.begin(), index.weightMap.end());
  std::sort(index.shards.begin(), index.shards.end());
  index.shards.erase(std::unique(index.shards.begin(), index.shards.end()), index.shards.end());
  return index;
}

SafetensorsIndex readSafetensorsIndex(const std::filesystem::path& path) {
  const std::string what = "index '" + path.string() + "'";
  std::string text;
  try {
    text = readRegularFile(path, kSafetensorsIndexMaxBytes, "index");
  } catch (const FileReadError& e) {
    throw SafetensorsIndexError(e.what());
  }
  return parseSafetensorsIndex(text, what);
}

} // namespace mantissa::io
