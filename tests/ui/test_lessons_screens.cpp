// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Not a test: the driver of tests/ui/lesson_screenshots.sh. Shows every
// lesson full screen, runs its first demo and grabs the X root window
// (as `import -window root` does) into <dir>/lesson-<n>-<mode>-<w>x<h>.png.
#include "ui/app_shell/theme.h"
#include "ui/lessons/lessons_page.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QScreen>
#include <QSignalSpy>
#include <QListWidget>
#include <QThread>

#include <cstdio>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR normal|presenter\n", argv[0]);
    return 2;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  const bool presenter = QString::fromLocal8Bit(argv[2]) == QStringLiteral("presenter");
  QDir().mkpath(dir);
  auto& theme = mantissa::ui::Theme::instance();
  theme.setPresenter(presenter);
  theme.apply();
  mantissa::ui::LessonsPage page;
  // No window manager under Xvfb: place the window over the whole screen ourselves.
  page.setGeometry(QGuiApplication::primaryScreen()->geometry());
  page.showFullScreen();
  const QSize size = page.screen()->size();
  for (int i = 0; i < page.lessonList()->count(); ++i) {
    page.showLesson(i);
    if (page.demoChoice()->count() > 0) {
      QSignalSpy done(&page, &mantissa::ui::LessonsPage::demoFinished);
      page.runSelectedDemo();
      if (!done.wait(120000)) std::fprintf(stderr, "lesson %d: demo did not finish\n", i + 1);
    }
    for (int k = 0; k < 20; ++k) {
      QApplication::processEvents();
      QThread::msleep(25);
    }
    const QString file = QStringLiteral("%1/lesson-%2-%3-%4x%5.png")
                             .arg(dir).arg(i + 1).arg(presenter ? "presenter" : "normal")
                             .arg(size.width()).arg(size.height());
    if (!page.screen()->grabWindow(0).save(file)) {
      std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
      return 1;
    }
    std::printf("%s\n", qPrintable(file));
  }
  return 0;
}
