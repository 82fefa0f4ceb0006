// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Character-level text data: the embedded Tiny Shakespeare against the file in
// resources/data (read here with plain std::ifstream), the vocabulary and the
// 90/10 split by their definitions, seeded windows, and every rejected input
// by its message.
#include <mantissa/data/text.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>

using namespace mantissa::data;

namespace {

std::string readSource(const std::string& relative) {
  std::ifstream in(std::string(MANTISSA_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string errorOf(std::string_view bytes, int ctx = 8) {
  try {
    parseText(bytes, "notes.txt", ctx);
  } catch (const DataError& e) {
    return e.what();
  }
  return "(accepted)";
}

} // namespace

TEST(TextData, ShakespeareIsTheShippedFileWith65Characters) {
  const std::string raw = readSource("resources/data/tinyshakespeare.txt");
  ASSERT_EQ(raw.size(), 1115394u);
  const TextCorpus corpus = loadTextSpec("shakespeare", 64);
  EXPECT_EQ(corpus.tokens.size(), raw.size()); // ASCII: one character per byte
  const std::set<char> distinct(raw.begin(), raw.end());
  ASSERT_EQ(corpus.vocabularySize(), 65);
  EXPECT_EQ(distinct.size(), 65u);
  auto it = distinct.begin();
  for (int v = 0; v < 65; ++v, ++it)
    EXPECT_EQ(corpus.vocabulary[static_cast<std::size_t>(v)], static_cast<char32_t>(*it));
  // The first characters, decoded back.
  EXPECT_EQ(corpus.decode(std::span(corpus.tokens).first(14)), "First Citizen:");
  EXPECT_EQ(corpus.decode(corpus.tokens), raw);
  // nanoGPT: train = data[:int(n*0.9)], val = data[int(n*0.9):]
  EXPECT_EQ(corpus.trainSize, 1003854u);
  EXPECT_EQ(corpus.split(TextSplit::Validation).size(), 1115394u - 1003854u);
}

TEST(TextData, VocabularyIsSortedCodePointsOfUtf8) {
  // "é" U+00E9, "€" U+20AC, "𝄞" U+1D11E among ASCII, repeated to one window each split.
  std::string text;
  for (int i = 0; i < 20; ++i)
    text += "ba\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\n";
  const TextCorpus c = parseText(text, "u.txt", 4);
  const std::vector<char32_t> expected{U'\n', U'a', U'b', 0xE9, 0x20AC, 0x1D11E};
  EXPECT_EQ(c.vocabulary, expected);
  EXPECT_EQ(c.tokens.size(), 120u);
  EXPECT_EQ(c.tokenOf(0x20AC), 4);
  EXPECT_EQ(c.tokenOf(U'z'), -1);
  EXPECT_EQ(c.decode(std::span(c.tokens).first(6)), "ba\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\n");
}

TEST(TextData, ByteOrderMarkIsSkipped) {
  const TextCorpus c = parseText("\xEF\xBB\xBF" + std::string(100, 'x'), "bom.txt", 4);
  EXPECT_EQ(c.tokens.size(), 100u);
  EXPECT_EQ(c.vocabularySize(), 1);
}

TEST(TextData, RejectsEmptyBinaryShortAndInvalidInputNamingFileAndProblem) {
  EXPECT_EQ(errorOf(""), "notes.txt: empty: the file holds no text");
  EXPECT_EQ(errorOf("\xEF\xBB\xBF"), "notes.txt: empty: the file holds no text");
  const std::string longText(200, 'a');
  EXPECT_EQ(errorOf(longText.substr(0, 50) + std::string(1, '\0') + longText),
            "notes.txt: binary, not text: control byte 0x00 at byte 50 (line 1)");
  EXPECT_NE(errorOf("ab\ncd\n\x01" + longText).find("binary, not text: control byte 0x01 at byte 6 (line 3)"),
            std::string::npos);
  // Lone continuation byte, truncated sequence, overlong '/', surrogate, > U+10FFFF.
  for (const std::string& bad : {std::string("\x80"), std::string("\xC3"), std::string("\xC0\xAF"),
                                std::string("\xED\xA0\x80"), std::string("\xF4\x90\x80\x80")}) {
    const std::string message = errorOf(longText + "\n" + bad + longText);
    EXPECT_NE(message.find("notes.txt: invalid UTF-8 at byte 201 (line 2)"), std::string::npos)
        << message;
  }
  // ctx 8: windows of 9; 81 characters split 72 + 9, 80 split 72 + 8.
  EXPECT_EQ(errorOf(std::string(80, 'a')),
            "notes.txt: too short: 80 characters; the validation split (the last 10%) must hold "
            "one window of ctx + 1 = 9 characters, so at least 81 characters are needed");
  EXPECT_EQ(errorOf(std::string(81, 'a')), "(accepted)");
}

TEST(TextData, RejectsTooManyDistinctCharacters) {
  std::string text;
  for (char32_t c = 0x4E00; c < 0x4E00 + 5000; ++c) { // CJK ideographs, 3 bytes each
    text += static_cast<char>(0xE0 | (c >> 12));
    text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    text += static_cast<char>(0x80 | (c & 0x3F));
  }
  EXPECT_EQ(errorOf(text), "notes.txt: too many distinct characters: 5000, the limit is 4096");
}

TEST(TextData, FilesAreReadAndErrorsNameThePath) {
  const auto dir = std::filesystem::temp_directory_path() / "mantissa_test_text";
  std::filesystem::create_directories(dir);
  const auto good = dir / "poem.txt";
  std::ofstream(good, std::ios::binary) << std::string(300, 'q');
  EXPECT_EQ(loadTextSpec(good.string(), 16).tokens.size(), 300u);
  const auto empty = dir / "empty.txt";
  std::ofstream(empty, std::ios::binary).flush();
  try {
    loadTextSpec(empty.string(), 16);
    FAIL() << "empty file accepted";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()), empty.string() + ": empty: the file holds no text");
  }
  try {
    loadTextSpec((dir / "missing.txt").string(), 16);
    FAIL() << "missing file accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.txt"), std::string::npos) << e.what();
  }
  try {
    loadTextSpec("mnist", 16);
    FAIL() << "an image set accepted as text";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()), "mnist: a built-in image or point set, not text; a GPT trains "
                                     "on text: shakespeare, or a UTF-8 .txt file");
  }
  std::filesystem::remove_all(dir);
}

TEST(TextData, WindowsAreSeededShiftedByOneAndInsideTheirSplit) {
  const TextCorpus corpus = loadTextSpec("shakespeare", 64);
  const int batch = 12, ctx = 64;
  std::vector<std::int32_t> x(batch * ctx), y(batch * ctx), x2(batch * ctx), y2(batch * ctx);
  TextBatcher a(corpus, TextSplit::Validation, ctx, 7), b(corpus, TextSplit::Validation, ctx, 7);
  TextBatcher c(corpus, TextSplit::Validation, ctx, 8);
  std::set<std::size_t> offsets;
  for (int step = 0; step < 50; ++step) {
    a.next(batch, x, y);
    b.next(batch, x2, y2);
    EXPECT_EQ(x, x2);
    EXPECT_EQ(y, y2);
    const auto val = corpus.split(TextSplit::Validation);
    for (int r = 0; r < batch; ++r) {
      const std::size_t start = a.lastOffsets()[static_cast<std::size_t>(r)];
      ASSERT_LE(start + ctx + 1, val.size());
      offsets.insert(start);
      for (int t = 0; t < ctx; ++t) {
        EXPECT_EQ(x[static_cast<std::size_t>(r * ctx + t)], val[start + static_cast<std::size_t>(t)]);
        EXPECT_EQ(y[static_cast<std::size_t>(r * ctx + t)], val[start + static_cast<std::size_t>(t) + 1]);
      }
    }
  }
  EXPECT_GT(offsets.size(), 590u); // 600 draws from ~111k starts: nearly all distinct
  c.next(batch, x2, y2);
  TextBatcher a2(corpus, TextSplit::Validation, ctx, 7);
  a2.next(batch, x, y);
  EXPECT_NE(x, x2); // another seed, other windows
}
