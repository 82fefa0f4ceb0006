// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The text loader on hostile bytes: data::parseText (the in-memory form of
// loadText), with the context length taken from the first byte. Either
// DataError with a message naming the file, or a corpus that is consistent:
// a sorted vocabulary without duplicates or control characters, every token
// inside it, both splits at least one window long, decoding the tokens gives
// back the input (without a leading byte-order mark), and a batch of windows
// stays inside its split.

#include <mantissa/data/text.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::data;
  if (size == 0)
    return 0;
  const int ctx = 1 + data[0] % 32;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const TextCorpus c = parseText(text, "fuzz.txt", ctx);
    if (c.vocabulary.empty() || !std::is_sorted(c.vocabulary.begin(), c.vocabulary.end()) ||
        std::adjacent_find(c.vocabulary.begin(), c.vocabulary.end()) != c.vocabulary.end())
      std::abort();
    for (const char32_t v : c.vocabulary)
      if (v == 0 || v > 0x10FFFF)
        std::abort();
    for (const std::int32_t t : c.tokens)
      if (t < 0 || t >= c.vocabularySize())
        std::abort();
    const std::size_t window = static_cast<std::size_t>(ctx) + 1;
    if (c.split(TextSplit::Train).size() < window || c.split(TextSplit::Validation).size() < window)
      std::abort();
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
      text.remove_prefix(3);
    if (c.decode(c.tokens) != text)
      std::abort();
    TextBatcher batcher(c, TextSplit::Validation, ctx, size);
    std::vector<std::int32_t> x(static_cast<std::size_t>(ctx) * 2), y(x.size());
    batcher.next(2, x, y);
    for (int b = 0; b < 2; ++b)
      if (batcher.lastOffsets()[static_cast<std::size_t>(b)] + window >
          c.split(TextSplit::Validation).size())
        std::abort();
  } catch (const DataError& e) {
    if (std::string_view(e.what()).substr(0, 10) != "fuzz.txt: ")
      std::abort();
  }
  return 0;
}
