// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/data/text.h>

#include "data/byte_stream.h"
#include "data/embedded_data.h"
#include "data/rng.h"

#include <mantissa/tensor/run_state.h>

#include <algorithm>
#include <array>
#include <sstream>

namespace mantissa::data {
namespace {

[[noreturn]] void fail(std::string_view name, const std::string& problem) {
  throw DataError(std::string(name) + ": " + problem);
}

std::string hexByte(std::uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string("0x") + kDigits[b >> 4] + kDigits[b & 15];
}

// Line (1-based) of byte offset `at`.
std::size_t lineOf(std::string_view bytes, std::size_t at) {
  return 1 + static_cast<std::size_t>(std::count(bytes.begin(), bytes.begin() + at, '\n'));
}

// Decodes one UTF-8 sequence at bytes[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF). Returns its length, 0 if invalid.
int decodeOne(std::string_view bytes, std::size_t i, char32_t& out) {
  const auto at = [&](std::size_t k) { return static_cast<std::uint8_t>(bytes[k]); };
  const std::uint8_t b0 = at(i);
  if (b0 < 0x80) {
    out = b0;
    return 1;
  }
  int length;
  char32_t cp;
  char32_t minimum;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2, cp = b0 & 0x1F, minimum = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3, cp = b0 & 0x0F, minimum = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4, cp = b0 & 0x07, minimum = 0x10000;
  } else {
    return 0;
  }
  if (i + static_cast<std::size_t>(length) > bytes.size())
    return 0;
  for (int k = 1; k < length; ++k) {
    const std::uint8_t b = at(i + static_cast<std::size_t>(k));
    if ((b & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  out = cp;
  return length;
}

bool isBinaryControl(char32_t c) {
  return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f';
}

void appendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

constexpr std::string_view kShakespeareFile = "tinyshakespeare.txt";

} // namespace

std::span<const std::int32_t> TextCorpus::split(TextSplit which) const {
  const std::span<const std::int32_t> all(tokens);
  return which == TextSplit::Train ? all.first(trainSize) : all.subspan(trainSize);
}

std::int32_t TextCorpus::tokenOf(char32_t c) const {
  const auto it = std::lower_bound(vocabulary.begin(), vocabulary.end(), c);
  return it != vocabulary.end() && *it == c ? static_cast<std::int32_t>(it - vocabulary.begin())
                                            : -1;
}

std::string TextCorpus::decode(std::span<const std::int32_t> ids) const {
  std::string out;
  out.reserve(ids.size());
  for (const std::int32_t id : ids)
    appendUtf8(out, vocabulary.at(static_cast<std::size_t>(id)));
  return out;
}

std::optional<std::u32string> decodeUtf8(std::string_view bytes, std::size_t& bad) {
  std::u32string out;
  for (std::size_t i = 0; i < bytes.size();) {
    char32_t c = 0;
    const int n = decodeOne(bytes, i, c);
    if (n == 0) {
      bad = i;
      return std::nullopt;
    }
    out += c;
    i += static_cast<std::size_t>(n);
  }
  return out;
}

TextCorpus parseText(std::string_view bytes, std::string_view name, int ctx) {
  if (ctx < 1)
    fail(name, "context length must be at least 1, got " + std::to_string(ctx));
  if (bytes.size() > kMaxTextBytes)
    fail(name, "too large: " + std::to_string(bytes.size()) + " bytes, the limit is " +
                   std::to_string(kMaxTextBytes) + " bytes (64 MiB)");
  std::size_t i = 0;
  if (bytes.size() >= 3 && bytes.substr(0, 3) == "\xEF\xBB\xBF")
    i = 3; // byte-order mark
  if (i == bytes.size())
    fail(name, "empty: the file holds no text");

  TextCorpus corpus;
  corpus.name = std::string(name);
  std::vector<char32_t> codePoints;
  codePoints.reserve(bytes.size() - i);
  while (i < bytes.size()) {
    char32_t c = 0;
    const int length = decodeOne(bytes, i, c);
    if (length == 0)
      fail(name, "invalid UTF-8 at byte " + std::to_string(i) + " (line " +
                     std::to_string(lineOf(bytes, i)) + "): byte " +
                     hexByte(static_cast<std::uint8_t>(bytes[i])) +
                     " does not start a valid sequence; save the file as UTF-8 text");
    if (isBinaryControl(c))
      fail(name, "binary, not text: control byte " + hexByte(static_cast<std::uint8_t>(c)) +
                     " at byte " + std::to_string(i) + " (line " +
                     std::to_string(lineOf(bytes, i)) + ")");
    codePoints.push_back(c);
    i += static_cast<std::size_t>(length);
  }

  // The validation split is the smaller one: it decides the minimum length.
  const std::size_t n = codePoints.size();
  const std::size_t window = static_cast<std::size_t>(ctx) + 1;
  const std::size_t trainSize = n * 9 / 10;
  if (n - trainSize < window || trainSize < window) {
    // n - floor(0.9 n) = ceil(n / 10) >= window  <=>  n >= 10 (window - 1) + 1.
    fail(name, "too short: " + std::to_string(n) + " characters; the validation split (the last " +
                   "10%) must hold one window of ctx + 1 = " + std::to_string(window) +
                   " characters, so at least " + std::to_string(10 * window - 9) +
                   " characters are needed");
  }

  corpus.vocabulary = codePoints;
  std::sort(corpus.vocabulary.begin(), corpus.vocabulary.end());
  corpus.vocabulary.erase(std::unique(corpus.vocabulary.begin(), corpus.vocabulary.end()),
                          corpus.vocabulary.end());
  if (corpus.vocabulary.size() > static_cast<std::size_t>(kMaxTextVocabulary))
    fail(name, "too many distinct characters: " + std::to_string(corpus.vocabulary.size()) +
                   ", the limit is " + std::to_string(kMaxTextVocabulary));
  corpus.tokens.resize(n);
  for (std::size_t k = 0; k < n; ++k)
    corpus.tokens[k] = corpus.tokenOf(codePoints[k]);
  corpus.trainSize = trainSize;
  return corpus;
}

TextCorpus loadText(const std::filesystem::path& path, int ctx) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxTextBytes)
    fail(path.string(), "too large: " + std::to_string(size) + " bytes, the limit is " +
                            std::to_string(kMaxTextBytes) + " bytes (64 MiB)");
  const std::vector<std::uint8_t> bytes = detail::readFileBytes(path);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return parseText(text, path.string(), ctx);
}

std::vector<std::string> builtinTextNames() {
  return {"shakespeare"};
}

bool isBuiltinText(std::string_view name) {
  return name == "shakespeare";
}

TextCorpus loadTextSpec(std::string_view spec, int ctx) {
  if (spec == "shakespeare") {
    const auto bytes = detail::embeddedFile(kShakespeareFile);
    if (bytes.empty())
      throw DataError("shakespeare: the embedded text is missing from this build");
    return parseText(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                     "shakespeare", ctx);
  }
  const std::filesystem::path path{std::string(spec)};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    const auto images = builtinNames();
    if (std::find(images.begin(), images.end(), spec) != images.end())
      throw DataError(std::string(spec) +
                      ": a built-in image or point set, not text; a GPT trains on text: "
                      "shakespeare, or a UTF-8 .txt file");
  }
  return loadText(path, ctx);
}

TextBatcher::TextBatcher(const TextCorpus& corpus, TextSplit split, int ctx, std::uint64_t seed)
    : m_tokens(corpus.split(split)), m_ctx(ctx),
      m_state(detail::mixSeed(seed, split == TextSplit::Train ? 101 : 202)) {
  if (ctx < 1 || m_tokens.size() < static_cast<std::size_t>(ctx) + 1)
    throw DataError(corpus.name + ": the " +
                    std::string(split == TextSplit::Train ? "training" : "validation") +
                    " split is shorter than one window of ctx + 1 = " + std::to_string(ctx + 1) +
                    " characters");
}

void TextBatcher::visitState(RunStateVisitor& v) { v.value("state", m_state); }

void TextBatcher::next(int batch, std::span<std::int32_t> x, std::span<std::int32_t> y) {
  const std::size_t t = static_cast<std::size_t>(m_ctx);
  if (batch < 1 || x.size() < static_cast<std::size_t>(batch) * t ||
      y.size() < static_cast<std::size_t>(batch) * t)
    throw std::invalid_argument("TextBatcher::next: x and y must hold batch * ctx tokens");
  m_offsets.resize(static_cast<std::size_t>(batch));
  detail::SplitMix64 rng(m_state);
  m_state = rng.next();
  const std::uint64_t starts = m_tokens.size() - t; // windows of t + 1 tokens
  for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
    const std::size_t start = static_cast<std::size_t>(rng.below(starts));
    m_offsets[b] = start;
    std::copy_n(m_tokens.begin() + static_cast<std::ptrdiff_t>(start), t, x.begin() + b * t);
    std::copy_n(m_tokens.begin() + static_cast<std::ptrdiff_t>(start + 1), t, y.begin() + b * t);
  }
}

} // namespace mantissa::data
