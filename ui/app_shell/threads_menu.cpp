// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/app_shell/threads_menu.h"

#include "ui/app_shell/settings.h"

#include <mantissa/kernels/threads.h>

#include <QActionGroup>

namespace mantissa::ui {

ThreadsMenu::ThreadsMenu(QWidget* parent) : QMenu(tr("Compute &Threads"), parent) {
  setToolTip(tr("Threads of the training step's kernels and of the speed benchmark"));
  m_group = new QActionGroup(this);
  m_group->setExclusive(true);
  const int cpus = kernels::availableCpus();
  QAction* all = addAction(tr("Every CPU (%1)").arg(cpus));
  all->setData(0);
  addSeparator();
  for (int n = 1; n <= cpus; ++n) {
    QAction* a = addAction(n == 1 ? tr("1 thread") : tr("%1 threads").arg(n));
    a->setData(n);
  }
  for (QAction* a : actions())
    if (!a->isSeparator()) {
      a->setCheckable(true);
      m_group->addAction(a);
    }
  connect(m_group, &QActionGroup::triggered, this, [this](QAction* a) {
    const int n = a->data().toInt();
    kernels::setKernelThreads(n);
    Settings().setComputeThreads(n);
    emit threadsChosen(n);
  });
  int remembered = Settings().computeThreads();
  if (remembered < 0 || remembered > cpus)
    remembered = 0; // another machine's count
  choose(remembered);
}

void ThreadsMenu::choose(int threads) {
  if (QAction* a = actionFor(threads)) {
    a->setChecked(true);
    kernels::setKernelThreads(threads);
  }
}

int ThreadsMenu::chosen() const {
  const QAction* a = m_group->checkedAction();
  return a ? a->data().toInt() : 0;
}

QAction* ThreadsMenu::actionFor(int threads) const {
  for (QAction* a : m_group->actions())
    if (a->data().toInt() == threads)
      return a;
  return nullptr;
}

} // namespace mantissa::ui
