// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/bridge/run_names.h"

#include <QStringList>

#include <algorithm>
#include <set>

namespace mantissa::ui {

namespace {

constexpr std::size_t kMaxSettingsInName = 2;

QString settingText(const std::string& key, const QString& value) {
  if (key == "scaler")
    return value.isEmpty() || value == QLatin1String("none")
               ? QStringLiteral("no scaler")
               : QStringLiteral("scaler %1").arg(value);
  QString label = QString::fromStdString(key);
  label.replace(u'_', u' ');
  return QStringLiteral("%1 %2").arg(label, value.isEmpty() ? QStringLiteral("default") : value);
}

} // namespace

std::vector<QString> distinctRunNames(const std::vector<RunNaming>& runs) {
  std::vector<QString> names;
  names.reserve(runs.size());
  for (const RunNaming& run : runs) {
    QString name = run.base;
    std::vector<const RunNaming*> alike;
    for (const RunNaming& other : runs)
      if (other.base == run.base)
        alike.push_back(&other);
    if (alike.size() > 1) {
      // The keys whose values are not the same in every run of the group,
      // "scaler" first, then by key.
      std::set<std::string> keys;
      for (const RunNaming* r : alike)
        for (const auto& [key, value] : r->settings)
          keys.insert(key);
      std::vector<std::string> differing;
      for (const std::string& key : keys) {
        const auto valueOf = [&key](const RunNaming* r) {
          const auto it = r->settings.find(key);
          return it == r->settings.end() ? QString() : it->second;
        };
        const QString first = valueOf(alike.front());
        if (std::any_of(alike.begin(), alike.end(),
                        [&](const RunNaming* r) { return valueOf(r) != first; }))
          differing.push_back(key);
      }
      std::stable_partition(differing.begin(), differing.end(),
                            [](const std::string& k) { return k == "scaler"; });
      QStringList parts;
      for (std::size_t i = 0; i < differing.size() && i < kMaxSettingsInName; ++i) {
        const auto it = run.settings.find(differing[i]);
        parts << settingText(differing[i], it == run.settings.end() ? QString() : it->second);
      }
      if (!parts.isEmpty())
        name += QStringLiteral(" · ") + parts.join(QStringLiteral(", "));
    }
    names.push_back(name);
  }
  // Still alike (the same settings, or different ones beyond the two named):
  // numbered from the second on.
  std::set<QString> used;
  for (QString& name : names) {
    QString unique = name;
    for (int n = 2; used.count(unique) != 0; ++n)
      unique = QStringLiteral("%1 (%2)").arg(name).arg(n);
    used.insert(unique);
    name = unique;
  }
  return names;
}

QStringList settingsBeyondSetupText(const train::RunConfig& config) {
  QStringList out;
  for (const std::string& s : train::settingsBeyondSetup(config))
    out << QString::fromStdString(s);
  return out;
}

QString withSettingsBeyondSetup(const QString& name, const train::RunConfig& config) {
  return (QStringList{name} + settingsBeyondSetupText(config)).join(QStringLiteral(" · "));
}

} // namespace mantissa::ui
