// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/train/run_config.h>

#include <QString>
#include <QStringList>

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

// train::settingsBeyondSetup as text: what a run's title and charts add to
// its name ("loss × 2^-14", "scaler initial scale 2^32").
QStringList settingsBeyondSetupText(const train::RunConfig& config);
// `name` followed by them: "fp32 · loss × 2^-14".
QString withSettingsBeyondSetup(const QString& name, const train::RunConfig& config);

} // namespace mantissa::ui
