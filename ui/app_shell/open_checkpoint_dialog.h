// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include "ui/bridge/run_controller.h"

#include <mantissa/train/checkpoint.h>

#include <QDialog>
#include <QString>

#include <cstdint>

class QLabel;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace mantissa::ui {

// File > Open Checkpoint, once the file's metadata has been read: what the
// checkpoint holds (model, recipe, data, the step it stopped at) and what it
// can become. Resume training, to a total number of steps (a total at or
// below the saved step is refused inline), when it holds the run's state;
// generate text in the Generate dock, when it is a GPT's.
class OpenCheckpointDialog : public QDialog {
  Q_OBJECT
public:
  OpenCheckpointDialog(const QString& path, const train::CheckpointInfo& info,
                       QWidget* parent = nullptr);

  RunController::CheckpointUse use() const;
  std::int64_t totalSteps() const;

  QRadioButton* resumeButton() const { return m_resume; }
  QRadioButton* sampleButton() const { return m_sample; }
  QSpinBox* totalBox() const { return m_total; }
  QLabel* problemLabel() const { return m_problem; }
  QPushButton* openButton() const { return m_open; }

private:
  void check(); // the inline problem, and whether Open can be pressed

  std::int64_t m_step = 0;
  QRadioButton* m_resume = nullptr;
  QRadioButton* m_sample = nullptr;
  QSpinBox* m_total = nullptr;
  QLabel* m_problem = nullptr;
  QPushButton* m_open = nullptr;
};

} // namespace mantissa::ui
