// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <QFontMetrics>
#include <QLabel>
#include <QMargins>
#include <QString>
#include <QStringList>
#include <QWidget>

namespace mantissa::ui {

// Sets the text of a one-line label that changes at every live frame (step
// counts, speeds) without re-laying out the page around it. QLabel::setText
// calls updateGeometry, which invalidates the parent's layout unless the label
// has a fixed size; so the label keeps a fixed size, widened with some slack
// when the text outgrows it and narrowed only when the text is much shorter.
// A new step count then repaints the label alone. For plain one-line text.
// With narrow = false the label keeps the widest width it needed (numbers
// whose length changes from step to step).
inline void setSteadyText(QLabel* label, const QString& text, bool narrow = true) {
  if (label->text() == text)
    return;
  label->setText(text); // relays out only while the size is not fixed yet
  // Not sizeHint(): a QLabel's hint never goes below its minimum size.
  const QMargins m = label->contentsMargins();
  const QFontMetrics fm = label->fontMetrics();
  const QSize need(fm.horizontalAdvance(text) + m.left() + m.right() + 2 * label->margin(),
                   fm.height() + m.top() + m.bottom() + 2 * label->margin());
  const int width = label->minimumWidth();
  const bool fixed = width == label->maximumWidth();
  if (!fixed || need.width() > width || (narrow && need.width() < width * 3 / 4))
    label->setFixedWidth(need.width() + need.width() / 8 + 8);
  if (label->minimumHeight() != need.height() || label->maximumHeight() != need.height())
    label->setFixedHeight(need.height());
}

// One line of text that changes at every live frame (run progress) in a place
// whose width the layout decides (a toolbar): its size hint does not follow
// the text, so a new text repaints this widget alone, over its parent's
// background (no box of another colour). Of the forms given, most detailed
// first, it shows the first that fits, else the last one elided; the first is
// the tooltip.
class SteadyTextLine : public QWidget {
public:
  explicit SteadyTextLine(QWidget* parent = nullptr);
  void setForms(const QStringList& forms);
  QString text() const { return m_shown; } // as shown
  QString fullText() const { return m_forms.isEmpty() ? QString() : m_forms.front(); }
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void fit();
  QStringList m_forms;
  QString m_shown;
};

} // namespace mantissa::ui
