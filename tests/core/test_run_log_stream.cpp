// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A run log read as it grows (File > Follow Run): the same log fed byte by
// byte, line by line or whole reads the same as loadRunLog() reads the file;
// a partial last line waits; a bad complete line is an error naming the file
// and line, keeps the records before it, and leaves the stream failed.
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_stream.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace mantissa::train;

std::string fixture() {
  std::ifstream in(MANTISSA_TAP_FIXTURE, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RunLogStream, PiecesReadLikeTheWholeFile) {
  const std::string text = fixture();
  ASSERT_GT(text.size(), 1000u);
  const std::string expected = runLogText(loadRunLog(MANTISSA_TAP_FIXTURE));
  for (std::size_t piece : {std::size_t(1), std::size_t(7), std::size_t(4096), text.size()}) {
    RunLogStream stream("tap.jsonl");
    std::size_t added = 0;
    for (std::size_t at = 0; at < text.size(); at += piece)
      added += stream.feed(std::string_view(text).substr(at, piece));
    EXPECT_EQ(added, 14u) << "header, 12 steps, summary";
    EXPECT_FALSE(stream.waitingForLineEnd());
    EXPECT_EQ(stream.lines(), 14);
    EXPECT_EQ(runLogText(stream.log()), expected) << "pieces of " << piece;
  }
}

TEST(RunLogStream, APartialLineWaitsForItsEnd) {
  const std::string text = fixture();
  const std::size_t second = text.find('\n') + 1;
  const std::size_t third = text.find('\n', second) + 1;
  RunLogStream stream("tap.jsonl");
  EXPECT_EQ(stream.feed(std::string_view(text).substr(0, second + 10)), 1u); // header + 10 bytes
  EXPECT_TRUE(stream.waitingForLineEnd());
  EXPECT_TRUE(stream.log().steps.empty());
  EXPECT_EQ(stream.feed(std::string_view(text).substr(second + 10, third - second - 10)), 1u);
  EXPECT_FALSE(stream.waitingForLineEnd());
  ASSERT_EQ(stream.log().steps.size(), 1u);
  EXPECT_EQ(stream.log().steps[0].step, 0);
  EXPECT_EQ(stream.log().frames.size(), 1u);
}

TEST(RunLogStream, ABadLineNamesFileAndLineAndStopsTheStream) {
  const std::string text = fixture();
  const std::size_t third = text.find('\n', text.find('\n') + 1) + 1;
  RunLogStream stream("live.jsonl");
  stream.feed(std::string_view(text).substr(0, third));
  try {
    stream.feed("\n{\"step\": 1, \"loss\": \"high\"}\n");
    FAIL() << "a step row with a text loss was accepted";
  } catch (const RunLogError& e) {
    EXPECT_NE(std::string(e.what()).find("live.jsonl:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("loss"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(stream.failed());
  EXPECT_EQ(stream.log().steps.size(), 1u) << "the step before the bad line is kept";
  EXPECT_THROW(stream.feed(std::string_view(text).substr(third)), RunLogError);
  EXPECT_EQ(stream.log().steps.size(), 1u);

  RunLogStream notJson("x.jsonl");
  EXPECT_THROW(notJson.feed("{\"header\": tru\n"), RunLogError);
}

} // namespace
