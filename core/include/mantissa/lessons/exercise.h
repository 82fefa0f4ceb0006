// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Graded exercises on number formats: a seeded, offline generator, the key
// computed by the codec (codec.h, block_quant.h, loss_scaler.h), an answer
// checker and a worked solution for every item.
//
// The same (format, kind, seed, difficulty) gives the same item on every
// machine: the random numbers are SplitMix64 with integer arithmetic only
// (no std distributions, whose output differs between standard libraries),
// and decimals are printed with std::to_chars (exact, locale-free).
//
// Kinds (the CLI's spelling in brackets):
//   Encode     [encode]  a decimal to the format's bits, round to nearest even
//   Decode     [decode]  bits to the exact value
//   Neighbours [next]    the next value up and down, and the ULP at x
//   Round      [round]   guard, round and sticky bits, and the rounded result
//   Range      [range]   which values of a list flush to zero, which overflow
//   MxScale    [mx]      an MX block's shared E8M0 scale, which elements clip
//   LossScale  [loss-scale] the loss scale after a run of finite and
//                         overflowing steps under a scaler preset
//
// Answers (exerciseAnswerRules() says it in words for a student):
//   a Code part wants one pattern of the exercise's format: its bits ("0101
//     0011", "0b01010011", spaces and '_' ignored, as many digits as the
//     format has bits), its hex code ("0x53"), or the exact value it holds
//     ("26", "-0.375", "2^-3", "inf");
//   a Value part wants a number: a decimal or "2^k" that rounds to the key in
//     the part's format (so "0.1" names FP32's 0x3dcccccd), or the key's hex
//     code in that format;
//   an Indices part wants item numbers ("2, 5") or "none";
//   a Digits part wants a digit string ("101"; spaces, commas, "G=", "R=",
//     "S=" ignored).

#include <mantissa/numeric/format.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::lessons {

enum class ExerciseKind : std::uint8_t { Encode, Decode, Neighbours, Round, Range, MxScale, LossScale };

std::span<const ExerciseKind> allExerciseKinds();
std::string_view exerciseKindName(ExerciseKind kind);  // "encode", ..., "loss-scale"
std::string_view exerciseKindTitle(ExerciseKind kind); // "Encode a decimal", ...
std::optional<ExerciseKind> parseExerciseKind(std::string_view name);

// The formats exercises are written for: the codec's known formats
// (explorerFormats() then microscalingFormats()).
std::vector<numeric::FormatId> exerciseFormats();
// Whether `kind` makes sense in `format`: Round needs sign/exponent/mantissa
// fields, Range a zero, MxScale an MX element format, LossScale an overflow
// that gives inf or NaN.
bool kindAppliesTo(ExerciseKind kind, numeric::FormatId format);

inline constexpr int kMinDifficulty = 1;
inline constexpr int kMaxDifficulty = 3;

enum class AnswerForm : std::uint8_t { Code, Value, Indices, Digits };

struct AnswerPart {
  std::string label;  // "bits", "next up", "ULP", "flush to zero", ...
  AnswerForm form = AnswerForm::Code;
  numeric::FormatId format = numeric::FormatId::Fp32; // Code and Value: the key's format
  std::uint64_t bits = 0;  // Code and Value: the key as a pattern of `format`
  std::string value;       // Code and Value: the key's exact decimal, as the codec decodes `bits`
  std::vector<int> indices; // Indices: 1-based item numbers, ascending
  std::string digits;       // Digits: the expected digit string
  std::string keyText;      // the key as the answer sheet prints it
};

// The worked solution's bit-cell animation (Round, and Encode when x rounds
// between two normal values): each frame is
// the exercise format's pattern in the Explorer's bit cells, then the bits
// cut off after the last kept one, as the rounding goes:
//   1. the exact value: sign, exponent field and the first m fraction bits
//      in the cells, the k cut-off bits after them;
//   2. the cut-off bits named: guard (the first), round (the second), sticky
//      (the OR of the rest);
//   3. the decision of round to nearest even (down, up, or a tie to even);
//   4. the rounded result: the key's pattern, nothing cut off.
struct CutBit {
  std::string label; // "" (frame 1), "G", "R", "S"
  int digit = 0;     // 0 or 1
};
struct SolutionFrame {
  std::string caption;      // what the frame shows, in words and numbers
  std::uint64_t bits = 0;   // the pattern in the exercise's format
  std::vector<CutBit> cut;  // the bits cut off after the kept ones; empty once rounded
  bool moreCut = false;     // frame 1: further non-zero bits follow the ones shown
};

struct Exercise {
  ExerciseKind kind = ExerciseKind::Encode;
  numeric::FormatId format = numeric::FormatId::Fp32;
  int difficulty = 1;
  std::uint64_t seed = 0;
  std::string question;            // one paragraph, plain text
  std::vector<std::string> items;  // Range, MxScale: the numbered values
  std::vector<AnswerPart> parts;   // what the student fills in, in order
  std::vector<std::string> steps;  // the worked solution, one step a line
  // The pattern the solution is about (shown in bit cells): the key for
  // Encode and Round, the given bits for Decode and Neighbours.
  std::optional<std::uint64_t> subjectBits;
  // The rounding, frame by frame (Round, Encode); empty: the cells show subjectBits.
  // The last frame's bits are the key's.
  std::vector<SolutionFrame> frames;
};

// One item. difficulty is clamped to [kMinDifficulty, kMaxDifficulty].
// Throws std::invalid_argument if !kindAppliesTo(kind, format).
Exercise generateExercise(numeric::FormatId format, ExerciseKind kind, std::uint64_t seed,
                          int difficulty);

struct PartGrade {
  bool correct = false;
  std::string feedback; // "0x53 is 26; the key is 0x54 (28)"
};
struct Grade {
  std::vector<PartGrade> parts;
  bool correct() const; // every part correct
};

// One answer text per part (missing ones count as empty, which is wrong).
Grade gradeAnswer(const Exercise& exercise, std::span<const std::string> answers);
PartGrade gradePart(const AnswerPart& part, std::string_view answer);

// The answer rules above, in two sentences for a student.
std::string_view exerciseAnswerRules();

// "0 1010 011": the pattern's fields separated by spaces.
std::string groupedBits(const numeric::FloatFormat& format, std::uint64_t bits);

// A worksheet: `count` items of one kind in one format, item i from the seed
// sheetItemSeed(seed, format, kind, i).
struct SheetSpec {
  numeric::FormatId format = numeric::FormatId::Fp8E4M3;
  ExerciseKind kind = ExerciseKind::Encode;
  int count = 20;
  std::uint64_t seed = 1;
  int difficulty = 2;
};
struct Sheet {
  SheetSpec spec;
  std::string title; // "FP8 E4M3: round to nearest even (seed 7)"
  std::vector<Exercise> items;
};
inline constexpr int kMaxSheetItems = 500;
std::uint64_t sheetItemSeed(std::uint64_t seed, numeric::FormatId format, ExerciseKind kind, int index);
Sheet generateSheet(const SheetSpec& spec); // throws std::invalid_argument as generateExercise

// The worksheet and its answer key (worked solutions) as Markdown.
std::string sheetMarkdown(const Sheet& sheet);

} // namespace mantissa::lessons
