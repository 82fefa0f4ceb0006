// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/numeric/format.h>

#include <QPoint>
#include <QStringList>
#include <QWidget>

#include <optional>

class QComboBox;
class QFrame;
class QLabel;
class QToolButton;

namespace mantissa::ui {

// Chooses one more format whose regions the histogram and the heat map show
// (a short button, "Shade…" or "Shade: E4M3 b9 fnuz", whose box opens under it):
// a named one from the list, one of the formats the run recorded cast
// fractions for (--telemetry-formats), or any spec typed in
// ("e5m2:bias=13,special=fn"). What is typed is checked as it is typed by
// core's spec parser (numeric::parseFormatSpec); its error, which names the
// field, shows under the box, and nothing is chosen until the text is valid.
class FormatOverlayPicker : public QWidget {
  Q_OBJECT
public:
  explicit FormatOverlayPicker(QWidget* parent = nullptr);

  // The formats a run names in --telemetry-formats (names or specs), listed first.
  void setOfferedFormats(const QStringList& formats);
  // Chooses `text` (a name, a spec, or "" for none) as if typed and confirmed.
  // Returns false, and shows the error, when it is not a format.
  bool choose(const QString& text);
  const std::optional<numeric::FloatFormat>& chosen() const { return m_chosen; }

  // The box and its error, under the button (the button opens it).
  void showPopup();
  void showPopupAt(QPoint globalPos); // e.g. where a chart's context menu was

  bool popupShown() const;
  QToolButton* button() const { return m_button; }
  QComboBox* box() const { return m_box; }
  QLabel* errorLabel() const { return m_error; }
  QString errorText() const; // "" when what is typed is valid

signals:
  // The user confirmed a format (nullopt: none).
  void formatChosen(const std::optional<mantissa::numeric::FloatFormat>& format);

private:
  std::optional<numeric::FloatFormat> parse(const QString& text, QString* error) const;
  void validate(const QString& text);
  void confirm();
  void updateButton();

  QToolButton* m_button = nullptr;
  QFrame* m_popup = nullptr;
  QComboBox* m_box = nullptr;
  QLabel* m_error = nullptr;
  QStringList m_offered;
  std::optional<numeric::FloatFormat> m_chosen;
};

} // namespace mantissa::ui
