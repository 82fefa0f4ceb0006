// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/safetensors.h>

#include <mantissa/io/atomic_file.h>
#include <mantissa/io/json_text.h>
#include <mantissa/io/regular_file.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

namespace mantissa::io {

namespace {

using nlohmann::json;

struct DTypeRow {
  SafetensorsDType dtype;
  std::string_view name;
  int bits;
};

constexpr std::array<DTypeRow, 21> kDTypes{{
    {SafetensorsDType::Bool, "BOOL", 8},
    {SafetensorsDType::U8, "U8", 8},
    {SafetensorsDType::I8, "I8", 8},
    {SafetensorsDType::U16, "U16", 16},
    {SafetensorsDType::I16, "I16", 16},
    {SafetensorsDType::U32, "U32", 32},
    {SafetensorsDType::I32, "I32", 32},
    {SafetensorsDType::U64, "U64", 64},
    {SafetensorsDType::I64, "I64", 64},
    {SafetensorsDType::F16, "F16", 16},
    {SafetensorsDType::BF16, "BF16", 16},
    {SafetensorsDType::F32, "F32", 32},
    {SafetensorsDType::F64, "F64", 64},
    {SafetensorsDType::F8E4M3, "F8_E4M3", 8},
    {SafetensorsDType::F8E5M2, "F8_E5M2", 8},
    {SafetensorsDType::F8E8M0, "F8_E8M0", 8},
    {SafetensorsDType::F8E4M3Fnuz, "F8_E4M3FNUZ", 8},
    {SafetensorsDType::F8E5M2Fnuz, "F8_E5M2FNUZ", 8},
    {SafetensorsDType::F6E2M3, "F6_E2M3", 6},
    {SafetensorsDType::F6E3M2, "F6_E3M2", 6},
    {SafetensorsDType::F4, "F4", 4},
}};

static_assert([] {
  for (std::size_t i = 0; i < kDTypes.size(); ++i)
    if (static_cast<std::size_t>(kDTypes[i].dtype) != i)
      return false;
  return true;
}(), "kDTypes lists the dtypes in the enum's order");

const DTypeRow& rowOf(SafetensorsDType dtype) {
  return kDTypes[static_cast<std::size_t>(dtype)];
}

constexpr std::string_view kMetadataKey = "__metadata__";

std::string tensorPrefix(const std::string& what, std::string_view name) {
  return what + ": tensor " + quotedForMessage(name) + ": ";
}

// The bytes shape x dtype fills, or an error message's reason when the
// element count or bit count overflows 64 bits or ends mid-byte.
std::optional<std::uint64_t> byteSize(SafetensorsDType dtype, const std::vector<std::uint64_t>& shape,
                                      std::string& why) {
  std::uint64_t count = 1;
  for (const std::uint64_t d : shape)
    if (d != 0 && count > UINT64_MAX / d) {
      why = "shape " + safetensorsShapeText(shape) + " has more elements than 2^64";
      return std::nullopt;
    } else {
      count *= d;
    }
  const auto bits = std::uint64_t(rowOf(dtype).bits);
  if (count > UINT64_MAX / bits) {
    why = "shape " + safetensorsShapeText(shape) + " of " + std::string(rowOf(dtype).name) +
          " holds more than 2^64 bits";
    return std::nullopt;
  }
  if ((count * bits) % 8 != 0) {
    why = "shape " + safetensorsShapeText(shape) + " of " + std::string(rowOf(dtype).name) + " fills " +
          std::to_string(count * bits) + " bits, not a whole number of bytes";
    return std::nullopt;
  }
  return count * bits / 8;
}

// Reads the header as nlohmann's parser announces it, one event at a time,
// into one record per tensor. The structure is fixed (root object, tensor
// or metadata object, arrays of integers), so anything else is refused at
// the event that breaks it and the nesting never passes 3 levels.
class HeaderReader {
public:
  explicit HeaderReader(const std::string& what) : m_what(what) {}

  bool null() { return unexpected("null"); }
  bool boolean(bool) { return unexpected("true or false"); }
  bool number_integer(json::number_integer_t v) {
    return v < 0 ? unexpected("a negative number") : integer(std::uint64_t(v));
  }
  bool number_unsigned(json::number_unsigned_t v) { return integer(v); }
  bool number_float(json::number_float_t, const json::string_t&) {
    return unexpected("a number that is not a 64-bit integer");
  }
  bool binary(json::binary_t&) { return unexpected("binary data"); }

  bool string(json::string_t& v) {
    if (m_state == State::TensorValue && m_field == Field::DType) {
      const auto dtype = safetensorsDTypeFromName(v);
      if (!dtype)
        return fail(tensorPrefix(m_what, m_tensor.name) + "unknown dtype " + quotedForMessage(v));
      m_tensor.dtype = *dtype;
      m_state = State::Tensor;
      return true;
    }
    if (m_state == State::MetadataValue) {
      m_metadata.back().second = std::move(v);
      m_state = State::Metadata;
      return true;
    }
    return unexpected("a string");
  }

  bool start_object(std::size_t) {
    switch (m_state) {
    case State::Start:
      m_state = State::Root;
      return true;
    case State::RootValue:
      if (m_inMetadata) {
        m_state = State::Metadata;
      } else {
        m_state = State::Tensor;
        m_seen = 0;
      }
      return true;
    default:
      return unexpected("an object");
    }
  }

  bool key(json::string_t& k) {
    switch (m_state) {
    case State::Root:
      m_inMetadata = k == kMetadataKey;
      if (m_inMetadata) {
        if (m_sawMetadata)
          return fail(m_what + ": header: duplicate key \"__metadata__\"");
        m_sawMetadata = true;
      } else {
        m_tensor = SafetensorsTensor{};
        m_tensor.name = std::move(k);
      }
      m_state = State::RootValue;
      return true;
    case State::Tensor: {
      Field field;
      if (k == "dtype")
        field = Field::DType;
      else if (k == "shape")
        field = Field::Shape;
      else if (k == "data_offsets")
        field = Field::Offsets;
      else
        return fail(tensorPrefix(m_what, m_tensor.name) + "unknown field " + quotedForMessage(k) +
                    " (a tensor has \"dtype\", \"shape\" and \"data_offsets\")");
      const unsigned bit = 1u << unsigned(field);
      if (m_seen & bit)
        return fail(tensorPrefix(m_what, m_tensor.name) + "duplicate key " + quotedForMessage(k));
      m_seen |= bit;
      m_field = field;
      m_state = State::TensorValue;
      return true;
    }
    case State::Metadata:
      m_metadata.emplace_back(std::move(k), std::string());
      m_state = State::MetadataValue;
      return true;
    default:
      return unexpected("a key"); // not reached: keys come only inside objects
    }
  }

  bool end_object() {
    switch (m_state) {
    case State::Root:
      m_state = State::Done;
      return true;
    case State::Metadata:
      m_state = State::Root;
      return true;
    case State::Tensor:
      if (m_seen != 7u) {
        const char* missing = !(m_seen & 1u) ? "\"dtype\"" : !(m_seen & 2u) ? "\"shape\"" : "\"data_offsets\"";
        return fail(tensorPrefix(m_what, m_tensor.name) + "no " + missing + " field");
      }
      m_tensors.push_back(std::move(m_tensor));
      m_state = State::Root;
      return true;
    default:
      return unexpected("the end of an object");
    }
  }

  bool start_array(std::size_t) {
    if (m_state != State::TensorValue || m_field == Field::DType)
      return unexpected("an array");
    m_state = m_field == Field::Shape ? State::ShapeArray : State::OffsetsArray;
    m_count = 0;
    return true;
  }

  bool end_array() {
    if (m_state == State::ShapeArray) {
      m_state = State::Tensor;
      return true;
    }
    if (m_state == State::OffsetsArray) {
      if (m_count != 2)
        return fail(tensorPrefix(m_what, m_tensor.name) + "\"data_offsets\" has " +
                    std::to_string(m_count) + " numbers, expected 2 (begin and end)");
      m_state = State::Tensor;
      return true;
    }
    return unexpected("the end of an array");
  }

  bool parse_error(std::size_t position, const std::string&, const json::exception& e) {
    m_position = position;
    if (e.id == 406)
      m_error = "number out of range";
    else if (std::string_view(e.what()).find("unexpected end of input") != std::string_view::npos)
      m_error = "not valid JSON: the text ends before the value does";
    else
      m_error = "not valid JSON";
    return false;
  }

  std::optional<std::string> m_error;
  std::optional<std::size_t> m_position; // bytes read when a syntax error was seen
  std::vector<SafetensorsTensor> m_tensors;
  std::vector<std::pair<std::string, std::string>> m_metadata;
  bool done() const { return m_state == State::Done; }

private:
  enum class State {
    Start, Root, RootValue, Tensor, TensorValue, ShapeArray, OffsetsArray, Metadata, MetadataValue,
    Done
  };
  enum class Field { DType = 0, Shape = 1, Offsets = 2 };

  bool integer(std::uint64_t v) {
    if (m_state == State::ShapeArray) {
      m_tensor.shape.push_back(v);
      return true;
    }
    if (m_state == State::OffsetsArray) {
      if (m_count == 0)
        m_tensor.begin = v;
      else if (m_count == 1)
        m_tensor.end = v;
      else
        return fail(tensorPrefix(m_what, m_tensor.name) +
                    "\"data_offsets\" has more than 2 numbers, expected 2 (begin and end)");
      ++m_count;
      return true;
    }
    return unexpected("a number");
  }

  // A value the structure has no place for, named by where it was met.
  bool unexpected(const std::string& got) {
    switch (m_state) {
    case State::Start:
      return fail(m_what + ": header: expected a JSON object, got " + got);
    case State::RootValue:
      if (m_inMetadata)
        return fail(m_what + ": header: \"__metadata__\" must be an object of strings, got " + got);
      return fail(tensorPrefix(m_what, m_tensor.name) + "expected an object, got " + got);
    case State::TensorValue:
      return fail(tensorPrefix(m_what, m_tensor.name) +
                  (m_field == Field::DType   ? "\"dtype\" must be a string, got "
                   : m_field == Field::Shape ? "\"shape\" must be an array of integers, got "
                                             : "\"data_offsets\" must be an array of 2 integers, got ") +
                  got);
    case State::ShapeArray:
      return fail(tensorPrefix(m_what, m_tensor.name) +
                  "\"shape\" must hold non-negative integers, got " + got);
    case State::OffsetsArray:
      return fail(tensorPrefix(m_what, m_tensor.name) +
                  "\"data_offsets\" must hold non-negative integers, got " + got);
    case State::MetadataValue:
      return fail(m_what + ": \"__metadata__\": " + quotedForMessage(m_metadata.back().first) +
                  " must be a string, got " + got);
    default:
      return fail(m_what + ": header: unexpected " + got);
    }
  }

  bool fail(std::string message) {
    m_failure = std::move(message);
    return false;
  }

public:
  std::optional<std::string> m_failure; // a structural refusal, message complete

private:
  const std::string& m_what;
  State m_state = State::Start;
  bool m_inMetadata = false, m_sawMetadata = false;
  SafetensorsTensor m_tensor; // the tensor being read
  Field m_field = Field::DType;
  unsigned m_seen = 0;        // fields of m_tensor seen, one bit per Field
  std::size_t m_count = 0;    // numbers in the open "data_offsets"
};

std::uint64_t readLe64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | std::uint64_t(p[i]);
  return v;
}

// The header length against the limit and the file's size; returns N.
std::uint64_t checkedHeaderLength(std::uint64_t n, std::uint64_t fileSize, const std::string& what) {
  if (n > kSafetensorsMaxHeaderBytes)
    throw SafetensorsError(what + ": header length " + std::to_string(n) +
                           " is over the limit of 100 MB");
  if (n > fileSize - 8)
    throw SafetensorsError(what + ": header length " + std::to_string(n) + " runs past the end of the file (" +
                           std::to_string(fileSize) + " bytes, " + std::to_string(fileSize - 8) +
                           " after the length)");
  return n;
}

void checkFileStart(std::uint64_t fileSize, const std::string& what) {
  if (fileSize < 8)
    throw SafetensorsError(what + ": " + std::to_string(fileSize) +
                           " bytes, too short for the 8-byte header length");
}

} // namespace

std::string safetensorsShapeText(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string_view safetensorsDTypeName(SafetensorsDType dtype) { return rowOf(dtype).name; }

std::optional<SafetensorsDType> safetensorsDTypeFromName(std::string_view name) {
  for (const auto& row : kDTypes)
    if (row.name == name)
      return row.dtype;
  return std::nullopt;
}

int safetensorsDTypeBits(SafetensorsDType dtype) { return rowOf(dtype).bits; }

const SafetensorsTensor* SafetensorsHeader::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

const std::string* SafetensorsHeader::metadataValue(std::string_view key) const {
  const auto it = std::lower_bound(metadata.begin(), metadata.end(), key,
                                   [](const auto& kv, std::string_view k) { return kv.first < k; });
  return it != metadata.end() && it->first == key ? &it->second : nullptr;
}

SafetensorsHeader parseSafetensorsHeader(std::string_view text, std::uint64_t dataBytes,
                                         const std::string& what) {
  // nlohmann's lexer reads a NUL byte as the end of its input: refuse it
  // rather than let "{}\0..." pass with the rest unread.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw SafetensorsError(what + ": header byte " + std::to_string(nul) +
                           ": a NUL byte, which JSON text cannot hold");
  HeaderReader reader(what);
  const bool ok = json::sax_parse(text.data(), text.data() + text.size(), &reader,
                                  json::input_format_t::json, true);
  if (reader.m_failure)
    throw SafetensorsError(*reader.m_failure);
  if (!ok || reader.m_error || !reader.done()) {
    std::string where;
    if (reader.m_position)
      where = " at header byte " + std::to_string(*reader.m_position > 0 ? *reader.m_position - 1 : 0);
    throw SafetensorsError(what + ": header: " + reader.m_error.value_or("not valid JSON") + where);
  }

  SafetensorsHeader header;
  header.dataBytes = dataBytes;
  header.tensors = std::move(reader.m_tensors);
  header.metadata = std::move(reader.m_metadata);

  // Each tensor on its own: offsets in order and in bounds, size = shape x dtype.
  for (const auto& t : header.tensors) {
    if (t.begin > t.end)
      throw SafetensorsError(tensorPrefix(what, t.name) + "\"data_offsets\" [" +
                             std::to_string(t.begin) + ", " + std::to_string(t.end) +
                             "] end before they begin");
    if (t.end > dataBytes)
      throw SafetensorsError(tensorPrefix(what, t.name) + "\"data_offsets\" end at " +
                             std::to_string(t.end) + ", past the end of the data (" +
                             std::to_string(dataBytes) + " bytes)");
    std::string why;
    const auto size = byteSize(t.dtype, t.shape, why);
    if (!size)
      throw SafetensorsError(tensorPrefix(what, t.name) + why);
    if (*size != t.bytes())
      throw SafetensorsError(tensorPrefix(what, t.name) + "shape " + safetensorsShapeText(t.shape) + " of " +
                             std::string(safetensorsDTypeName(t.dtype)) + " is " +
                             std::to_string(*size) + " bytes, but \"data_offsets\" [" +
                             std::to_string(t.begin) + ", " + std::to_string(t.end) + "] hold " +
                             std::to_string(t.bytes()));
  }

  // Names: none twice (the JSON parser let them through; nlohmann would keep the last).
  {
    std::vector<std::uint32_t> order(header.tensors.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return header.tensors[a].name < header.tensors[b].name;
    });
    for (std::size_t i = 1; i < order.size(); ++i)
      if (header.tensors[order[i]].name == header.tensors[order[i - 1]].name)
        throw SafetensorsError(what + ": header: duplicate key " +
                               quotedForMessage(header.tensors[order[i]].name));
  }
  std::sort(header.metadata.begin(), header.metadata.end());
  for (std::size_t i = 1; i < header.metadata.size(); ++i)
    if (header.metadata[i].first == header.metadata[i - 1].first)
      throw SafetensorsError(what + ": \"__metadata__\": duplicate key " +
                             quotedForMessage(header.metadata[i].first));

  // The ranges in data order tile [0, dataBytes): no overlap, no gap.
  std::stable_sort(header.tensors.begin(), header.tensors.end(),
                   [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
                     return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                   });
  std::uint64_t at = 0;
  const SafetensorsTensor* previous = nullptr;
  for (const auto& t : header.tensors) {
    if (t.begin < at)
      throw SafetensorsError(tensorPrefix(what, t.name) + "\"data_offsets\" [" +
                             std::to_string(t.begin) + ", " + std::to_string(t.end) +
                             "] overlap tensor " + quotedForMessage(previous->name) + " [" +
                             std::to_string(previous->begin) + ", " + std::to_string(previous->end) +
                             "]");
    if (t.begin > at)
      throw SafetensorsError(tensorPrefix(what, t.name) + "\"data_offsets\" begin at " +
                             std::to_string(t.begin) + ", leaving a gap of " +
                             std::to_string(t.begin - at) + " bytes after " +
                             (previous ? "tensor " + quotedForMessage(previous->name)
                                       : std::string("the start of the data")));
    at = t.end;
    if (t.end > t.begin || !previous)
      previous = &t;
  }
  if (at != dataBytes)
    throw SafetensorsError(what + ": the tensors cover " + std::to_string(at) +
                           " bytes of data, but the file holds " + std::to_string(dataBytes) +
                           " after the header (" + std::to_string(dataBytes - at) +
                           " bytes belong to no tensor)");
  return header;
}

SafetensorsHeader parseSafetensors(std::span<const std::byte> file, const std::string& what) {
  checkFileStart(file.size(), what);
  const std::uint64_t n = checkedHeaderLength(readLe64(file.data()), file.size(), what);
  const std::string_view text(reinterpret_cast<const char*>(file.data() + 8), std::size_t(n));
  SafetensorsHeader header = parseSafetensorsHeader(text, file.size() - 8 - n, what);
  header.dataOffset = 8 + n;
  return header;
}

class SafetensorsReader::File {
public:
  File(const std::filesystem::path& path) : regular(path, "checkpoint") {}
  RegularFile regular;
  std::string what;
};

SafetensorsReader::SafetensorsReader(const std::filesystem::path& path) {
  const std::string what = "'" + path.string() + "'";
  try {
    m_file = std::make_unique<File>(path);
  } catch (const FileReadError& e) {
    throw SafetensorsError(e.what());
  }
  m_file->what = what;
  try {
    const std::uint64_t size = m_file->regular.size();
    checkFileStart(size, what);
    const std::string lengthBytes = m_file->regular.readAt(0, 8);
    if (lengthBytes.size() != 8)
      throw SafetensorsError(what + ": the file shrank while it was read");
    const std::uint64_t n = checkedHeaderLength(
        readLe64(reinterpret_cast<const std::byte*>(lengthBytes.data())), size, what);
    const std::string text = m_file->regular.readAt(8, std::size_t(n));
    if (text.size() != n)
      throw SafetensorsError(what + ": the file shrank while it was read");
    m_header = parseSafetensorsHeader(text, size - 8 - n, what);
    m_header.dataOffset = 8 + n;
  } catch (const FileReadError& e) {
    throw SafetensorsError(e.what());
  }
}

SafetensorsReader::~SafetensorsReader() = default;
SafetensorsReader::SafetensorsReader(SafetensorsReader&&) noexcept = default;
SafetensorsReader& SafetensorsReader::operator=(SafetensorsReader&&) noexcept = default;

std::vector<std::byte> SafetensorsReader::read(const SafetensorsTensor& tensor) const {
  std::string bytes;
  try {
    bytes = m_file->regular.readAt(m_header.dataOffset + tensor.begin, std::size_t(tensor.bytes()));
  } catch (const FileReadError& e) {
    throw SafetensorsError(e.what());
  }
  if (bytes.size() != tensor.bytes())
    throw SafetensorsError(tensorPrefix(m_file->what, tensor.name) +
                           "the file shrank while it was read");
  std::vector<std::byte> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

namespace {

// The header, padded with spaces to a multiple of 8, after its length.
std::string headerBytes(std::span<const SafetensorsEntry> tensors,
                        const std::vector<std::pair<std::string, std::string>>& metadata) {
  const auto quoted = [](const std::string& s) {
    try {
      return json(s).dump(-1, ' ', false, json::error_handler_t::strict);
    } catch (const json::type_error&) {
      throw SafetensorsError(quotedForMessage(s) + " is not valid UTF-8, which the header must be");
    }
  };
  std::string text = "{";
  if (!metadata.empty()) {
    auto sorted = metadata;
    std::sort(sorted.begin(), sorted.end());
    text += "\"__metadata__\":{";
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0 && sorted[i].first == sorted[i - 1].first)
        throw SafetensorsError("\"__metadata__\": key " + quotedForMessage(sorted[i].first) +
                               " given twice");
      text += (i ? "," : "") + quoted(sorted[i].first) + ":" + quoted(sorted[i].second);
    }
    text += "}";
  }
  std::vector<std::string_view> names;
  std::uint64_t at = 0;
  for (const auto& t : tensors) {
    if (t.name == kMetadataKey)
      throw SafetensorsError("tensor \"__metadata__\": the name is the format's metadata key");
    std::string why;
    const auto size = byteSize(t.dtype, t.shape, why);
    if (!size)
      throw SafetensorsError("tensor " + quotedForMessage(t.name) + ": " + why);
    if (*size != t.data.size())
      throw SafetensorsError("tensor " + quotedForMessage(t.name) + ": shape " + safetensorsShapeText(t.shape) +
                             " of " + std::string(safetensorsDTypeName(t.dtype)) + " is " +
                             std::to_string(*size) + " bytes, the data " +
                             std::to_string(t.data.size()));
    names.push_back(t.name);
    if (text.size() > 1)
      text += ",";
    text += quoted(t.name) + ":{\"dtype\":\"" + std::string(safetensorsDTypeName(t.dtype)) +
            "\",\"shape\":[";
    for (std::size_t i = 0; i < t.shape.size(); ++i)
      text += (i ? "," : "") + std::to_string(t.shape[i]);
    text += "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + *size) + "]}";
    at += *size;
  }
  text += "}";
  std::sort(names.begin(), names.end());
  if (const auto twice = std::adjacent_find(names.begin(), names.end()); twice != names.end())
    throw SafetensorsError("tensor " + quotedForMessage(*twice) + ": the name is given twice");
  text.append((8 - text.size() % 8) % 8, ' ');
  if (text.size() > kSafetensorsMaxHeaderBytes)
    throw SafetensorsError("the header would be " + std::to_string(text.size()) +
                           " bytes, over the limit of 100 MB");
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[std::size_t(i)] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
  return out + text;
}

} // namespace

std::string safetensorsBytes(std::span<const SafetensorsEntry> tensors,
                             const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string out = headerBytes(tensors, metadata);
  for (const auto& t : tensors)
    out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return out;
}

void writeSafetensors(const std::filesystem::path& path, std::span<const SafetensorsEntry> tensors,
                      const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string header;
  try {
    header = headerBytes(tensors, metadata);
  } catch (const SafetensorsError& e) {
    throw SafetensorsError("cannot write '" + path.string() + "': " + e.what());
  }
  AtomicFileWriter writer(path);
  writer.stream().write(header.data(), std::streamsize(header.size()));
  for (const auto& t : tensors)
    writer.stream().write(reinterpret_cast<const char*>(t.data.data()), std::streamsize(t.data.size()));
  writer.commit();
}

} // namespace mantissa::io
