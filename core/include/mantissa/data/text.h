// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Character-level text data for language models.
//
// A text is decoded from UTF-8 into Unicode code points; the vocabulary is
// the sorted set of its distinct code points (65 for Tiny Shakespeare) and
// every character becomes its index in that set. The first 90% of the
// characters are the training split, the last 10% the validation split (as
// nanoGPT's shakespeare_char does). A batch is B random windows of ctx + 1
// characters from one split: inputs are the first ctx, targets the last ctx.
//
// Legend: N characters, V vocabulary size, B batch, T = ctx.

#include <mantissa/data/dataset.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa {
class RunStateVisitor;
}

namespace mantissa::data {

// Largest text file read: 64 MiB. Largest vocabulary: 4096 distinct characters.
inline constexpr std::size_t kMaxTextBytes = std::size_t{64} << 20;
inline constexpr int kMaxTextVocabulary = 4096;

enum class TextSplit : std::uint8_t { Train, Validation };

struct TextCorpus {
  std::string name;                  // "shakespeare" or the file name
  std::vector<char32_t> vocabulary;  // [V] sorted code points
  std::vector<std::int32_t> tokens;  // [N] indices into vocabulary
  std::size_t trainSize = 0;         // first trainSize tokens: training split

  int vocabularySize() const { return static_cast<int>(vocabulary.size()); }
  std::span<const std::int32_t> split(TextSplit which) const;
  // The token of a code point, or -1 when it is not in the vocabulary.
  std::int32_t tokenOf(char32_t c) const;
  // UTF-8 text of tokens (each must be in [0, V)).
  std::string decode(std::span<const std::int32_t> ids) const;
};

// Parses UTF-8 text (a leading byte-order mark is skipped) into a corpus whose
// splits each hold at least one window of ctx + 1 characters. DataError names
// `name` and the problem: empty, binary (a NUL or other control byte besides
// tab, newline, carriage return, form feed), invalid UTF-8 (with its byte
// offset and line), too short for one window in each split, too many distinct
// characters, larger than kMaxTextBytes.
// The code points of UTF-8 text (RFC 3629); nullopt at the first invalid
// sequence, whose byte offset goes to `bad`.
std::optional<std::u32string> decodeUtf8(std::string_view bytes, std::size_t& bad);

TextCorpus parseText(std::string_view bytes, std::string_view name, int ctx);

// The file at `path` through parseText (missing, unreadable or oversized
// files also give DataError naming the path).
TextCorpus loadText(const std::filesystem::path& path, int ctx);

// {"shakespeare"}: the text data sets embedded in the library.
std::vector<std::string> builtinTextNames();
bool isBuiltinText(std::string_view name);

// "shakespeare" (Tiny Shakespeare, 1,115,394 characters) or a path to a UTF-8
// text file.
TextCorpus loadTextSpec(std::string_view spec, int ctx);

// Seeded random windows from one split. Fills x [B, T] and y [B, T] with
// y[b, t] = x[b, t + 1] of the same window: y is x shifted by one.
class TextBatcher {
public:
  TextBatcher(const TextCorpus& corpus, TextSplit split, int ctx, std::uint64_t seed);
  // x and y hold batch * ctx values each; batch > 0.
  void next(int batch, std::span<std::int32_t> x, std::span<std::int32_t> y);
  // Start offset of each window drawn by the last next() (for tests).
  std::span<const std::size_t> lastOffsets() const { return m_offsets; }
  // The random stream's state (tensor/run_state.h).
  void visitState(RunStateVisitor& v);

private:
  std::span<const std::int32_t> m_tokens;
  int m_ctx;
  std::uint64_t m_state;
  std::vector<std::size_t> m_offsets;
};

} // namespace mantissa::data
