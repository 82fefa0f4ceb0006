// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Not a test: the driver of tests/ui/lesson_screenshots.sh. Shows every
// lesson full screen, runs its demos and grabs the X root window (as
// `import -window root` does) into
//   <dir>/lesson-<n>-<mode>-<theme>-<w>x<h>-demo<d>.png          (normal mode: one per demo)
//   <dir>/lesson-<n>-<mode>-<theme>-<w>x<h>-slide<s>[-demo<d>].png (presenter: one per slide,
//                                                    the later demos on the last slide)
#include "ui/app_shell/theme.h"
#include "ui/lessons/lessons_page.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QListWidget>
#include <QScreen>
#include <QSignalSpy>
#include <QThread>

#include <cstdio>

namespace {

void settle() {
  for (int k = 0; k < 20; ++k) {
    QApplication::processEvents();
    QThread::msleep(25);
  }
}

bool runDemo(mantissa::ui::LessonsPage& page, int demo) {
  page.demoChoice()->setCurrentIndex(demo);
  QSignalSpy done(&page, &mantissa::ui::LessonsPage::demoFinished);
  page.runSelectedDemo();
  if (!done.wait(180000)) {
    std::fprintf(stderr, "lesson %d demo %d: did not finish\n", page.currentLesson() + 1, demo + 1);
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR normal|presenter [light|dark]\n", argv[0]);
    return 2;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  const bool presenter = QString::fromLocal8Bit(argv[2]) == QStringLiteral("presenter");
  const bool dark = argc > 3 && QString::fromLocal8Bit(argv[3]) == QStringLiteral("dark");
  QDir().mkpath(dir);
  auto& theme = mantissa::ui::Theme::instance();
  theme.setPresenter(presenter);
  theme.setDark(dark);
  theme.apply();
  mantissa::ui::LessonsPage page;
  // No window manager under Xvfb: place the window over the whole screen ourselves.
  page.setGeometry(QGuiApplication::primaryScreen()->geometry());
  page.showFullScreen();
  const QSize size = page.screen()->size();
  const QString tail = QStringLiteral("-%1-%2-%3x%4")
                           .arg(presenter ? "presenter" : "normal", dark ? "dark" : "light")
                           .arg(size.width())
                           .arg(size.height());
  const auto grab = [&](const QString& suffix) {
    settle();
    const QString file =
        QStringLiteral("%1/lesson-%2").arg(dir, QString::number(page.currentLesson() + 1)) + tail + suffix + QStringLiteral(".png");
    if (!page.screen()->grabWindow(0).save(file)) {
      std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
      return false;
    }
    std::printf("%s\n", qPrintable(file));
    return true;
  };
  // MANTISSA_SHOT_LESSON=N: lesson N only.
  const int only = qEnvironmentVariableIntValue("MANTISSA_SHOT_LESSON");
  for (int i = 0; i < page.lessonList()->count(); ++i) {
    if (only > 0 && i + 1 != only)
      continue;
    page.showLesson(i);
    const int demos = page.demoChoice()->count();
    if (!presenter) {
      for (int d = 0; d < std::max(1, demos); ++d) {
        if (d < demos) runDemo(page, d);
        if (!grab(QStringLiteral("-demo%1").arg(d + 1))) return 1;
      }
      continue;
    }
    if (demos > 0) runDemo(page, 0);
    for (int s = 0; s < page.slideCount(); ++s) {
      if (s > 0) page.advance(1);
      if (!grab(QStringLiteral("-slide%1").arg(s + 1))) return 1;
    }
    for (int d = 1; d < demos; ++d) {
      runDemo(page, d);
      if (!grab(QStringLiteral("-slide%1-demo%2").arg(page.slideCount()).arg(d + 1))) return 1;
    }
  }
  return 0;
}
