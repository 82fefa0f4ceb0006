// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/custom_format_form.h"

#include "ui/app_shell/palette.h"

#include <mantissa/numeric/format_spec.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace mantissa::ui {

CustomFormatForm::CustomFormatForm(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->setSpacing(6);
  row->addWidget(new QLabel(tr("Your format:")));
  m_sign = new QCheckBox(tr("sign"));
  m_sign->setChecked(true);
  m_sign->setToolTip(tr("A sign bit; without one the format holds only +0 and positive values"));
  row->addWidget(m_sign);
  row->addWidget(new QLabel(tr("E")));
  m_exponent = new QSpinBox;
  m_exponent->setRange(0, 11);
  m_exponent->setValue(4);
  m_exponent->setToolTip(tr("Exponent bits (0-11)"));
  row->addWidget(m_exponent);
  row->addWidget(new QLabel(tr("M")));
  m_mantissa = new QSpinBox;
  m_mantissa->setRange(0, 52);
  m_mantissa->setValue(3);
  m_mantissa->setToolTip(tr("Mantissa (fraction) bits (0-52)"));
  row->addWidget(m_mantissa);
  row->addWidget(new QLabel(tr("bias")));
  m_bias = new QLineEdit;
  m_bias->setPlaceholderText(tr("default"));
  m_bias->setMaximumWidth(70);
  m_bias->setToolTip(tr("Any integer; empty: 2^(E-1) - 1"));
  row->addWidget(m_bias);
  m_special = new QComboBox;
  for (const char* rule : {"ieee", "fn", "fnuz", "none"})
    m_special->addItem(QString::fromLatin1(rule));
  m_special->setToolTip(tr("What the top exponent holds: ieee (inf and NaN), fn (only all-ones "
                           "is NaN), fnuz (no inf, no -0, 0x80 is NaN), none (all numbers)"));
  row->addWidget(m_special);
  m_subnormals = new QCheckBox(tr("subnormals"));
  m_subnormals->setChecked(true);
  row->addWidget(m_subnormals);
  m_add = new QPushButton(tr("Add card"));
  row->addWidget(m_add);
  m_error = new QLabel;
  QPalette p = m_error->palette();
  p.setColor(QPalette::WindowText, palette::kWarning);
  m_error->setPalette(p);
  row->addWidget(m_error, 1);

  connect(m_sign, &QCheckBox::toggled, this, &CustomFormatForm::validate);
  connect(m_exponent, &QSpinBox::valueChanged, this, &CustomFormatForm::validate);
  connect(m_mantissa, &QSpinBox::valueChanged, this, &CustomFormatForm::validate);
  connect(m_bias, &QLineEdit::textChanged, this, &CustomFormatForm::validate);
  connect(m_special, &QComboBox::currentIndexChanged, this, &CustomFormatForm::validate);
  connect(m_subnormals, &QCheckBox::toggled, this, &CustomFormatForm::validate);
  connect(m_add, &QPushButton::clicked, this, [this] {
    if (m_format)
      emit formatAdded(*m_format);
  });
  validate();
}

QString CustomFormatForm::spec() const {
  QString s = QStringLiteral("e%1m%2:").arg(m_exponent->value()).arg(m_mantissa->value());
  const QString bias = m_bias->text().trimmed();
  if (!bias.isEmpty())
    s += QStringLiteral("bias=%1,").arg(bias);
  s += QStringLiteral("special=%1,subnormals=%2,sign=%3")
           .arg(m_special->currentText(), m_subnormals->isChecked() ? QStringLiteral("yes")
                                                                     : QStringLiteral("no"),
                m_sign->isChecked() ? QStringLiteral("yes") : QStringLiteral("no"));
  return s;
}

void CustomFormatForm::validate() {
  const QByteArray text = spec().toUtf8();
  const numeric::FormatParse p = numeric::parseFormatSpec(std::string_view(text.data(), std::size_t(text.size())));
  m_format = p.format;
  m_error->setText(p.format ? QString() : QString::fromStdString(p.error));
  m_add->setEnabled(p.format.has_value());
  m_add->setToolTip(p.format ? tr("Add %1 as a card").arg(QString::fromStdString(p.format->name))
                             : QString());
}

} // namespace mantissa::ui
