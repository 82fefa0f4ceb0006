// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli checkpoint: what a safetensors file holds.
//   mantissa-cli checkpoint run.safetensors          tensors, then the metadata
//   mantissa-cli checkpoint run.safetensors --json   the same as one JSON object
// Each float tensor (F64, F32, F16, BF16) is scanned for NaN and infinities,
// which load but are counted. Exit status: 0 listed, 1 a file the reader
// refuses (the message names the tensor or field), 2 bad usage.
#include "args.h"
#include "commands.h"

#include <mantissa/io/json_text.h>
#include <mantissa/io/safetensors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::cli {
namespace {

using io::SafetensorsDType;

// NaN or infinite elements of a float tensor's little-endian bytes;
// nullopt for the other dtypes.
std::optional<std::uint64_t> nonFinite(SafetensorsDType dtype, const std::vector<std::byte>& bytes) {
  const auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i)
      v = (v << 8) | std::to_integer<std::uint64_t>(bytes[at + std::size_t(i)]);
    return v;
  };
  // All exponent bits set: NaN or infinity, in each IEEE-style layout.
  std::uint64_t exponentMask = 0;
  int width = 0;
  switch (dtype) {
  case SafetensorsDType::F64: exponentMask = 0x7FF0000000000000ull; width = 8; break;
  case SafetensorsDType::F32: exponentMask = 0x7F800000u; width = 4; break;
  case SafetensorsDType::F16: exponentMask = 0x7C00u; width = 2; break;
  case SafetensorsDType::BF16: exponentMask = 0x7F80u; width = 2; break;
  default: return std::nullopt;
  }
  std::uint64_t count = 0;
  for (std::size_t at = 0; at + std::size_t(width) <= bytes.size(); at += std::size_t(width))
    count += (le(at, width) & exponentMask) == exponentMask;
  return count;
}


// Names and values from the file as the terminal gets them: control
// characters and non-ASCII bytes escaped, so no file can move the cursor.
std::string shown(const std::string& text) { return quoteInput(text, 4096); }

// The "config" entry as JSON when it parses (with the reader of outside JSON).
std::optional<nlohmann::json> configJson(const io::SafetensorsHeader& h) {
  const std::string* text = h.metadataValue("config");
  if (!text)
    return std::nullopt;
  try {
    return io::parseJsonText(*text);
  } catch (const io::JsonTextError&) {
    return std::nullopt;
  }
}

} // namespace

int runCheckpoint(const Args& args) {
  ArgParser p("checkpoint", "List the tensors of a safetensors checkpoint (name, dtype, shape, "
                            "bytes, NaN and infinities of float tensors) and its metadata, with "
                            "the run's configuration pretty-printed.");
  p.positional("FILE", "The .safetensors file");
  p.flag("json", "Print one JSON object instead of the tables");
  if (auto rc = p.parse(args))
    return *rc;
  const std::string path = *p.positionalValue("FILE");

  std::optional<io::SafetensorsReader> reader;
  std::vector<std::optional<std::uint64_t>> bad;
  try {
    reader.emplace(path);
    for (const auto& t : reader->header().tensors)
      bad.push_back(nonFinite(t.dtype, reader->read(t)));
  } catch (const io::SafetensorsError& e) {
    std::cerr << "mantissa-cli checkpoint: " << e.what() << "\n";
    return 1;
  }
  const io::SafetensorsHeader& h = reader->header();
  const auto config = configJson(h);
  std::size_t tensorsWithNonFinite = 0;
  for (const auto& b : bad)
    tensorsWithNonFinite += b && *b > 0;

  if (p.has("json")) {
    nlohmann::ordered_json out;
    out["file"] = path;
    out["data_offset"] = h.dataOffset; // 8 + the header's length
    out["data_bytes"] = h.dataBytes;
    auto& tensors = out["tensors"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < h.tensors.size(); ++i) {
      const auto& t = h.tensors[i];
      nlohmann::ordered_json row{{"name", t.name},
                                 {"dtype", std::string(io::safetensorsDTypeName(t.dtype))},
                                 {"shape", t.shape},
                                 {"bytes", t.bytes()},
                                 {"data_offsets", {t.begin, t.end}}};
      if (bad[i])
        row["nonfinite"] = *bad[i];
      tensors.push_back(std::move(row));
    }
    auto& metadata = out["metadata"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : h.metadata)
      metadata[k] = v;
    if (config)
      out["config"] = *config;
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }

  std::cout << shown(path) << ": " << h.tensors.size() << " tensor" << (h.tensors.size() == 1 ? "" : "s")
            << ", " << h.dataBytes << " bytes of data from byte " << h.dataOffset << "\n\n";
  std::vector<std::vector<std::string>> cells{{"name", "dtype", "shape", "bytes", "nan/inf"}};
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    const auto& t = h.tensors[i];
    cells.push_back({shown(t.name), std::string(io::safetensorsDTypeName(t.dtype)), io::safetensorsShapeText(t.shape),
                     std::to_string(t.bytes()), bad[i] ? std::to_string(*bad[i]) : "-"});
  }
  printTable(cells, 3); // numbers line up on the right
  if (tensorsWithNonFinite > 0)
    std::cout << "\n" << tensorsWithNonFinite << " tensor" << (tensorsWithNonFinite == 1 ? " holds" : "s hold")
              << " NaN or infinity\n";

  std::cout << "\nmetadata:" << (h.metadata.empty() ? " none\n" : "\n");
  for (const auto& [k, v] : h.metadata) {
    if (k == "config" && config) {
      // ensure_ascii: the dump holds no control character and no byte past ASCII.
      std::cout << "  config:\n    ";
      for (const char c : config->dump(2, ' ', true, nlohmann::json::error_handler_t::replace))
        std::cout << (c == '\n' ? std::string("\n    ") : std::string(1, c));
      std::cout << "\n";
      continue;
    }
    std::cout << "  " << shown(k) << ": " << shown(v) << "\n";
  }
  return 0;
}

} // namespace mantissa::cli
