// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QString>

#include <map>
#include <string>
#include <vector>

namespace mantissa::ui {

// What names one run among others: its base name (the recipe, a GPT's
// policy, "name · file" of a loaded log) and its settings as text, by key
// ("scaler" -> "pytorch", "lr" -> "0.05").
struct RunNaming {
  QString base;
  std::map<std::string, QString> settings;
};

// One distinct name per run, in order. A base name no other run has stays as
// it is; runs that share one get, after " · ", what differs between them
// (at most two settings, "scaler" first: "fp16-mixed · scaler pytorch",
// "fp16-mixed · no scaler"); runs alike in those too are numbered
// ("fp32 (2)").
std::vector<QString> distinctRunNames(const std::vector<RunNaming>& runs);

} // namespace mantissa::ui
