// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QMenu>

class QActionGroup;

namespace mantissa::ui {

// File > Compute Threads: how many threads the training step's kernels and
// the Speed page's benchmark use (kernels::setKernelThreads): every CPU
// (OpenMP's default) or 1..N. Remembered in Settings and applied at start;
// a running training picks the change up at its next step.
class ThreadsMenu : public QMenu {
  Q_OBJECT
public:
  explicit ThreadsMenu(QWidget* parent = nullptr);

  // 0: every CPU; else the thread count. Checks the matching entry.
  void choose(int threads);
  int chosen() const;
  // The entry for `threads` (0: every CPU), or nullptr past the CPU count.
  QAction* actionFor(int threads) const;

signals:
  void threadsChosen(int threads);

private:
  QActionGroup* m_group = nullptr;
};

} // namespace mantissa::ui
