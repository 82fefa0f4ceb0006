// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "headless_app.h"

#include <QApplication>

namespace mantissa::ui {

namespace {

// QApplication keeps references to argc and argv for its whole life.
int g_argc = 1;
char g_name[] = "mantissa-cli";
char* g_argv[] = {g_name, nullptr};

} // namespace

HeadlessApp::HeadlessApp() {
  if (QApplication::instance() != nullptr)
    return;
  // Files never need a screen: offscreen unless the user chose a platform, so
  // a stale DISPLAY (an expired ssh -X session) cannot abort a batch export.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    m_offscreen = true;
  }
  m_app = std::make_unique<QApplication>(g_argc, g_argv);
}

HeadlessApp::~HeadlessApp() = default;

} // namespace mantissa::ui
