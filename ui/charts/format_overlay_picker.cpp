// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "format_overlay_picker.h"

#include "format_regions.h"
#include "ui/app_shell/palette.h"

#include <mantissa/numeric/format_spec.h>

#include <QComboBox>
#include <QFrame>
#include <QGuiApplication>
#include <QScreen>
#include <QToolButton>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

namespace mantissa::ui {

namespace {

constexpr int kNameRole = Qt::UserRole; // the name or spec an item stands for

} // namespace

FormatOverlayPicker::FormatOverlayPicker(QWidget* parent) : QWidget(parent) {
  // One short button (in the Train page's tool bar, beside the run it
  // applies to); the box and its error open under it, wide enough to read a
  // typed spec whole.
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  m_button = new QToolButton(this);
  m_button->setToolButtonStyle(Qt::ToolButtonTextOnly);
  m_button->setToolTip(tr("Shade where another format flushes to zero, is subnormal, overflows, "
                          "on the histogram and the heat map"));
  outer->addWidget(m_button);
  m_popup = new QFrame(this, Qt::Popup);
  m_popup->setFrameShape(QFrame::StyledPanel);
  auto* column = new QVBoxLayout(m_popup);
  column->setContentsMargins(8, 8, 8, 8);
  column->setSpacing(4);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(tr("Also shade:"), m_popup);
  m_box = new QComboBox(m_popup);
  m_box->setEditable(true);
  m_box->setInsertPolicy(QComboBox::NoInsert);
  m_box->setMinimumContentsLength(26);
  m_box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_box->lineEdit()->setPlaceholderText(tr("a format, or a spec"));
  m_box->setToolTip(tr("Pick a format, or type a spec such as e5m2:bias=13,special=fn "
                       "(fields bias, special=ieee|fn|fnuz|none, subnormals, sign) and press Enter"));
  label->setBuddy(m_box);
  row->addWidget(label);
  row->addWidget(m_box, 1);
  column->addLayout(row);
  m_error = new QLabel(m_popup);
  m_error->setObjectName(QStringLiteral("formatOverlayError"));
  m_error->setTextFormat(Qt::PlainText);
  m_error->setWordWrap(true);
  m_error->setStyleSheet(QStringLiteral("color: %1; font-weight: bold").arg(palette::kVermillion.name()));
  m_error->setVisible(false);
  column->addWidget(m_error);
  connect(m_button, &QToolButton::clicked, this, &FormatOverlayPicker::showPopup);
  updateButton();
  setOfferedFormats({});

  connect(m_box->lineEdit(), &QLineEdit::textEdited, this, &FormatOverlayPicker::validate);
  connect(m_box->lineEdit(), &QLineEdit::returnPressed, this, &FormatOverlayPicker::confirm);
  connect(m_box, &QComboBox::activated, this, [this](int index) {
    const QString name = m_box->itemData(index, kNameRole).toString();
    QString error;
    const auto format = parse(name, &error);
    validate(m_box->currentText());
    if (!error.isEmpty())
      return;
    m_chosen = format;
    updateButton();
    m_popup->hide();
    emit formatChosen(m_chosen);
  });
}

void FormatOverlayPicker::setOfferedFormats(const QStringList& formats) {
  if (formats == m_offered && m_box->count() > 0)
    return;
  m_offered = formats;
  const QSignalBlocker block(m_box);
  m_box->clear();
  m_box->addItem(tr("none"), QString());
  for (const QString& spec : formats) {
    QString error;
    if (const auto format = parse(spec, &error))
      m_box->addItem(tr("%1 (the run's telemetry)").arg(formatDisplayName(*format)), spec);
  }
  for (numeric::FormatId id : numeric::namedFormats()) {
    if (id == numeric::FormatId::Fp64)
      continue;
    const numeric::FloatFormat& f = numeric::formatInfo(id);
    m_box->addItem(formatDisplayName(f), QString::fromStdString(f.name));
  }
  if (!m_chosen) {
    m_box->setEditText(QString());
    return;
  }
  const QString chosen = QString::fromStdString(m_chosen->name);
  int index = m_box->findData(chosen, kNameRole);
  if (index < 0) { // a typed spec stays an entry
    m_box->insertItem(1, formatDisplayName(*m_chosen), chosen);
    index = 1;
  }
  m_box->setCurrentIndex(index);
}

std::optional<numeric::FloatFormat> FormatOverlayPicker::parse(const QString& text,
                                                              QString* error) const {
  const QString trimmed = text.trimmed();
  if (trimmed.isEmpty() || trimmed == tr("none"))
    return std::nullopt;
  // A list entry's text ("FP8 E4M3FNUZ") stands for its name.
  QString spec = trimmed;
  if (const int index = m_box->findText(trimmed); index >= 0)
    spec = m_box->itemData(index, kNameRole).toString();
  if (spec.isEmpty())
    return std::nullopt;
  const numeric::FormatParse parsed = numeric::parseFormatSpec(spec.toStdString());
  if (!parsed.format) {
    *error = QString::fromStdString(parsed.error);
    return std::nullopt;
  }
  return parsed.format;
}

void FormatOverlayPicker::validate(const QString& text) {
  QString error;
  parse(text, &error);
  m_error->setText(error);
  m_error->setVisible(!error.isEmpty());
}

QString FormatOverlayPicker::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }

void FormatOverlayPicker::confirm() {
  QString error;
  const auto format = parse(m_box->currentText(), &error);
  validate(m_box->currentText());
  if (!error.isEmpty())
    return;
  m_chosen = format;
  if (format) {
    // A typed spec becomes an entry under its short name ("E4M3 b9 fnuz"),
    // which the narrow box shows whole, and which can be picked again.
    const QString spec = QString::fromStdString(format->name);
    int index = m_box->findData(spec, kNameRole);
    if (index < 0) {
      const QSignalBlocker block(m_box);
      m_box->insertItem(1, formatDisplayName(*format), spec);
      index = 1;
    }
    const QSignalBlocker block(m_box);
    m_box->setCurrentIndex(index);
  }
  updateButton();
  m_popup->hide();
  emit formatChosen(m_chosen);
}

void FormatOverlayPicker::showPopup() {
  showPopupAt(m_button->mapToGlobal(QPoint(0, m_button->height())));
}

void FormatOverlayPicker::showPopupAt(QPoint at) {
  m_popup->adjustSize();
  if (const QScreen* screen = QGuiApplication::screenAt(at) != nullptr ? QGuiApplication::screenAt(at)
                                                                        : QGuiApplication::primaryScreen()) {
    // Inside the screen, not past its right or bottom edge.
    const QRect area = screen->availableGeometry();
    at.setX(std::max(area.left(), std::min(at.x(), area.right() - m_popup->width())));
    at.setY(std::min(at.y(), area.bottom() - m_popup->height()));
  }
  m_popup->move(at);
  m_popup->show();
  m_box->setFocus();
  m_box->lineEdit()->selectAll();
}

bool FormatOverlayPicker::popupShown() const { return m_popup->isVisible(); }

// "Shade…", or the chosen format's short name: "Shade: E4M3 b9 fnuz".
void FormatOverlayPicker::updateButton() {
  if (!m_chosen) {
    m_button->setText(tr("Shade…"));
    return;
  }
  const QFontMetrics metrics(m_button->font());
  m_button->setText(metrics.elidedText(tr("Shade: %1").arg(formatDisplayName(*m_chosen)), Qt::ElideRight,
                                       metrics.horizontalAdvance(QStringLiteral("Shade: E4M3 b15 fnuz"))));
}

bool FormatOverlayPicker::choose(const QString& text) {
  m_box->setEditText(text);
  confirm();
  return errorText().isEmpty();
}

} // namespace mantissa::ui
