// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A QApplication for rendering charts from the command line. Unless the user
// chose a platform (QT_QPA_PLATFORM), it selects the offscreen platform before
// Qt starts, whether or not a display exists: writing files needs no screen,
// and `mantissa-cli plot`, `report` and `train --export` then run on a server
// and give the same bytes everywhere. Only those subcommands construct one;
// the others never start Qt.

#include <memory>

class QApplication;

namespace mantissa::ui {

class HeadlessApp {
public:
  HeadlessApp();
  ~HeadlessApp();
  HeadlessApp(const HeadlessApp&) = delete;
  HeadlessApp& operator=(const HeadlessApp&) = delete;

  // True when the offscreen platform was chosen here.
  bool offscreen() const { return m_offscreen; }

private:
  std::unique_ptr<QApplication> m_app; // nullptr when a QApplication already existed
  bool m_offscreen = false;
};

} // namespace mantissa::ui
