// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/settings.h"

#include <QDir>
#include <QStandardPaths>

namespace mantissa::ui {
namespace {
const QString kDarkKey = QStringLiteral("appearance/dark");
const QString kPresenterKey = QStringLiteral("appearance/presenter");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kLastPageKey = QStringLiteral("window/lastPage");
const QString kAutosaveKey = QStringLiteral("runs/autosave");
const QString kThreadsKey = QStringLiteral("compute/threads");
} // namespace

bool Settings::darkTheme() const {
  return m_settings.value(kDarkKey, false).toBool();
}
void Settings::setDarkTheme(bool dark) {
  m_settings.setValue(kDarkKey, dark);
}

bool Settings::presenterMode() const {
  return m_settings.value(kPresenterKey, false).toBool();
}
void Settings::setPresenterMode(bool on) {
  m_settings.setValue(kPresenterKey, on);
}

QByteArray Settings::windowGeometry() const {
  return m_settings.value(kGeometryKey).toByteArray();
}
void Settings::setWindowGeometry(const QByteArray& geometry) {
  m_settings.setValue(kGeometryKey, geometry);
}

QByteArray Settings::windowState() const {
  return m_settings.value(kStateKey).toByteArray();
}
void Settings::setWindowState(const QByteArray& state) {
  m_settings.setValue(kStateKey, state);
}

QString Settings::lastPage() const {
  return m_settings.value(kLastPageKey).toString();
}
void Settings::setLastPage(const QString& title) {
  m_settings.setValue(kLastPageKey, title);
}

bool Settings::autosaveRuns() const {
  return m_settings.value(kAutosaveKey, true).toBool();
}
void Settings::setAutosaveRuns(bool on) {
  m_settings.setValue(kAutosaveKey, on);
}

int Settings::computeThreads() const {
  return m_settings.value(kThreadsKey, 0).toInt();
}
void Settings::setComputeThreads(int threads) {
  m_settings.setValue(kThreadsKey, threads);
}

QString Settings::runsFolder() {
  const QString set = qEnvironmentVariable("MANTISSA_RUNS_DIR");
  if (!set.isEmpty())
    return set;
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("runs"));
}

} // namespace mantissa::ui
