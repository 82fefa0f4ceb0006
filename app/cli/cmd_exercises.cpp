// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli exercises: a worksheet of graded exercises in one format and
// its answer key with worked solutions, as Markdown (or PDF when built with
// the GUI libraries). The same seed gives the same sheet on every machine.
// Exit status: 0 written, 1 write failed, 2 bad usage.
#include "args.h"
#include "commands.h"
#include "numeric_cli.h"

#include <mantissa/io/atomic_file.h>
#include <mantissa/lessons/exercise.h>

#ifdef MANTISSA_CLI_HAS_UI
#include "ui/report/headless_app.h"
#include "ui/report/worksheet_pdf.h"
#endif

#include <iostream>
#include <limits>

namespace mantissa::cli {

namespace {

std::string kindNames() {
  std::string s;
  for (lessons::ExerciseKind k : lessons::allExerciseKinds())
    s += (s.empty() ? "" : ", ") + std::string(lessons::exerciseKindName(k));
  return s;
}

} // namespace

int runExercises(const Args& args) {
  ArgParser p("exercises", "Write a worksheet of graded exercises and its answer key.");
  p.option("format", "NAME", "The number format (fp32, fp16, bf16, fp8-e4m3, fp4-e2m1, e8m0, ...)",
           "fp8-e4m3");
  p.option("kind", "KIND", "What to practise: " + kindNames(), "encode");
  p.option("count", "N", "Number of items (1-" + std::to_string(lessons::kMaxSheetItems) + ")", "20");
  p.option("seed", "S", "Seed: the same seed gives the same sheet", "1");
  p.option("difficulty", "D", "1 (values near 1), 2 (the whole range) or 3 (edges, ties, subnormals)", "2");
  p.option("out", "FILE", "FILE.md (Markdown) or FILE.pdf (needs the GUI build); default: Markdown on stdout");
  if (auto rc = p.parse(args))
    return *rc;
  const auto format = parseFormatOption("exercises", "format", p.value("format"));
  if (!format)
    return 2;
  const auto kind = lessons::parseExerciseKind(lowerCase(p.value("kind")));
  if (!kind) {
    std::vector<std::string> names;
    for (lessons::ExerciseKind k : lessons::allExerciseKinds())
      names.emplace_back(lessons::exerciseKindName(k));
    std::cerr << "mantissa-cli exercises: --kind: unknown kind '" << quoteInput(p.value("kind")) << "'"
              << didYouMean(p.value("kind"), names) << " (known: " << kindNames() << ")\n";
    return 2;
  }
  if (!lessons::kindAppliesTo(*kind, *format)) {
    std::string fits;
    for (numeric::FormatId id : lessons::exerciseFormats())
      if (lessons::kindAppliesTo(*kind, id))
        fits += (fits.empty() ? "" : ", ") + std::string(numeric::formatInfo(id).name);
    std::cerr << "mantissa-cli exercises: '" << lessons::exerciseKindName(*kind) << "' exercises do not apply to "
              << numeric::formatInfo(*format).name << " (they do to: " << fits << ")\n";
    return 2;
  }
  const auto count = parseInteger("exercises", "count", p.value("count"), 1, lessons::kMaxSheetItems);
  const auto seed =
      parseInteger("exercises", "seed", p.value("seed"), 0, std::numeric_limits<long long>::max());
  const auto difficulty = parseInteger("exercises", "difficulty", p.value("difficulty"),
                                       lessons::kMinDifficulty, lessons::kMaxDifficulty);
  if (!count || !seed || !difficulty)
    return 2;
  const std::string out = p.value("out");
  const auto dot = out.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : lowerCase(out.substr(dot));
  if (!out.empty() && out != "-" && ext != ".md" && ext != ".markdown" && ext != ".pdf") {
    std::cerr << "mantissa-cli exercises: --out: '" << quoteInput(out)
              << "' must end in .md or .pdf (a worksheet is written as Markdown or PDF)\n";
    return 2;
  }
#ifndef MANTISSA_CLI_HAS_UI
  if (ext == ".pdf") {
    std::cerr << "mantissa-cli exercises: --out: PDF needs the GUI libraries, which this build lacks; "
                 "write FILE.md instead\n";
    return 2;
  }
#endif
  lessons::SheetSpec spec;
  spec.format = *format;
  spec.kind = *kind;
  spec.count = static_cast<int>(*count);
  spec.seed = static_cast<std::uint64_t>(*seed);
  spec.difficulty = static_cast<int>(*difficulty);
  const lessons::Sheet sheet = lessons::generateSheet(spec);
  try {
    if (out.empty() || out == "-") {
      std::cout << lessons::sheetMarkdown(sheet);
      return 0;
    }
    if (ext == ".pdf") {
#ifdef MANTISSA_CLI_HAS_UI
      usePrivateRuntimeDir();
      ui::HeadlessApp app;
      const QByteArray pdf = ui::worksheetPdf(sheet);
      io::writeFileAtomically(out, std::string_view(pdf.constData(), static_cast<std::size_t>(pdf.size())));
#endif
    } else {
      io::writeFileAtomically(out, lessons::sheetMarkdown(sheet));
    }
  } catch (const io::AtomicFileError& e) {
    std::cerr << "mantissa-cli exercises: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

} // namespace mantissa::cli
