// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/float_explorer.h"

#include "ui/app_shell/palette.h"
#include "ui/app_shell/theme.h"
#include "ui/formats/bit_cells.h"
#include "ui/formats/block_view.h"
#include "ui/formats/custom_format_form.h"
#include "ui/formats/format_card.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace mantissa::ui {
namespace {

using numeric::FormatId;
using numeric::Rounding;

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

const QString kHint = QObject::tr(
    "Decimal (0.1, -0, 1e-8), hex float (0x1.8p-3), inf, nan; raw bits: fp16:0x2e66 or pick "
    "\"Bits of\". Click a bit to flip it; ↑/↓ step one ULP in the selected row.");

} // namespace

FloatExplorer::FloatExplorer(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("floatExplorer"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 10, 12, 6);
  layout->setSpacing(6);
  layout->addWidget(buildHeader());
  layout->addWidget(buildOptions());
  m_customForm = new CustomFormatForm;
  connect(m_customForm, &CustomFormatForm::formatAdded, this, &FloatExplorer::addCard);
  layout->addWidget(m_customForm);

  auto* scroll = m_scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->viewport()->installEventFilter(this);
  m_cardsArea = new QWidget;
  auto* cards = m_cardsLayout = new QVBoxLayout(m_cardsArea);
  cards->setContentsMargins(0, 0, 0, 0);
  cards->setSpacing(6);
  for (FormatId id : numeric::explorerFormats()) {
    auto* card = new FormatCard(numeric::formatInfo(id));
    connect(card, &FormatCard::bitClicked, this, &FloatExplorer::flipBit);
    connect(card, &FormatCard::stepRequested, this, &FloatExplorer::step);
    connect(card, &FormatCard::activated, this, &FloatExplorer::selectFormat);
    cards->addWidget(card);
    m_cards.push_back(card);
  }
  cards->addStretch(1);
  scroll->setWidget(m_cardsArea);
  layout->addWidget(scroll, 1);
  layout->addWidget(buildLegend());

  buildActions();
  connect(&Theme::instance(), &Theme::changed, this, &FloatExplorer::applyFonts);
  applyFonts();
  selectFormat(FormatId::Fp32);
  m_input->setText(QStringLiteral("0.1"));
  applyInput();
}

QWidget* FloatExplorer::buildHeader() {
  auto* header = new QWidget;
  auto* v = new QVBoxLayout(header);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(2);
  auto* row = new QHBoxLayout;
  auto* label = new QLabel(tr("&Value"));
  m_input = new QLineEdit;
  m_input->setObjectName(QStringLiteral("valueInput"));
  m_input->setClearButtonEnabled(true);
  m_input->setPlaceholderText(tr("0.1, 1e-8, 0x1.8p-3, inf, nan, fp16:0x2e66"));
  label->setBuddy(m_input);
  m_mode = new QComboBox;
  m_mode->setObjectName(QStringLiteral("inputMode"));
  m_mode->setToolTip(tr("How to read hex typed in the field: as a number, or as the raw bits "
                        "of one format"));
  m_mode->addItem(tr("Read as value"), -1);
  for (FormatId id : numeric::explorerFormats())
    m_mode->addItem(tr("Bits of %1").arg(qs(numeric::formatInfo(id).displayName)), int(id));
  row->addWidget(label);
  row->addWidget(m_input, 1);
  row->addWidget(m_mode);
  v->addLayout(row);
  m_message = new QLabel(kHint);
  m_message->setObjectName(QStringLiteral("message"));
  m_message->setWordWrap(true);
  v->addWidget(m_message);

  connect(m_input, &QLineEdit::textEdited, this, &FloatExplorer::applyInput);
  connect(m_input, &QLineEdit::returnPressed, this, &FloatExplorer::applyInput);
  connect(m_mode, &QComboBox::currentIndexChanged, this, &FloatExplorer::applyInput);
  return header;
}

QWidget* FloatExplorer::buildOptions() {
  auto* box = new QWidget;
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  m_rounding = new QComboBox;
  m_rounding->setObjectName(QStringLiteral("rounding"));
  m_rounding->addItem(tr("nearest, ties to even"), int(Rounding::NearestEven));
  m_rounding->addItem(tr("toward zero"), int(Rounding::TowardZero));
  m_rounding->addItem(tr("up (toward +∞)"), int(Rounding::Up));
  m_rounding->addItem(tr("down (toward −∞)"), int(Rounding::Down));
  m_rounding->addItem(tr("stochastic"), int(Rounding::Stochastic));
  m_seed = new QSpinBox;
  m_seed->setObjectName(QStringLiteral("seed"));
  m_seed->setRange(0, 999999);
  m_seed->setValue(1);
  m_seed->setPrefix(tr("seed "));
  m_seed->setToolTip(tr("Stochastic rounding is reproducible: the same seed rounds the same way"));
  m_ftz = new QCheckBox(tr("&FTZ/DAZ"));
  m_ftz->setObjectName(QStringLiteral("ftz"));
  m_ftz->setToolTip(tr("Flush subnormal results to zero and treat subnormal inputs as zero, "
                       "as VCVTNEPS2BF16 does"));
  m_saturate = new QCheckBox(tr("&Saturate"));
  m_saturate->setObjectName(QStringLiteral("saturate"));
  m_saturate->setToolTip(tr("On overflow clamp to the largest finite value instead of ∞ (or NaN)"));
  auto* roundingLabel = new QLabel(tr("&Rounding"));
  roundingLabel->setBuddy(m_rounding);
  row->addWidget(roundingLabel);
  row->addWidget(m_rounding);
  row->addWidget(m_seed);
  row->addSpacing(16);
  row->addWidget(m_ftz);
  row->addWidget(m_saturate);
  row->addStretch(1);
  auto* blocks = new QToolButton;
  blocks->setObjectName(QStringLiteral("openBlockView"));
  blocks->setText(tr("&Block view…"));
  blocks->setToolTip(tr("Quantize up to 32 values with a block scale (MXFP8/6/4, MXINT8, NVFP4, FP8 blocks)"));
  connect(blocks, &QToolButton::clicked, this, [this] { openBlockView(); });
  row->addWidget(blocks);

  connect(m_rounding, &QComboBox::currentIndexChanged, this, &FloatExplorer::applyOptions);
  connect(m_seed, &QSpinBox::valueChanged, this, &FloatExplorer::applyOptions);
  connect(m_ftz, &QCheckBox::toggled, this, &FloatExplorer::applyOptions);
  connect(m_saturate, &QCheckBox::toggled, this, &FloatExplorer::applyOptions);
  m_seed->setEnabled(false);
  return box;
}

QWidget* FloatExplorer::buildLegend() {
  auto swatch = [](const QColor& c, const QString& name) {
    return QStringLiteral("<span style='color:%1'>■</span>&nbsp;%2").arg(c.name(), name);
  };
  m_legend = new QLabel(
      swatch(palette::kSign, tr("sign")) + QStringLiteral("&nbsp;&nbsp; ") +
      swatch(palette::kExponent, tr("exponent")) + QStringLiteral("&nbsp;&nbsp; ") +
      swatch(palette::kMantissa, tr("mantissa")) + QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp; ") +
      tr("Range strips share one log₂ axis: ") + swatch(palette::kSkyBlue, tr("subnormal")) +
      QStringLiteral("&nbsp; ") + swatch(palette::kBlue, tr("normal")) +
      QStringLiteral("&nbsp; <b>|</b>&nbsp;") + tr("where |value| falls") +
      QStringLiteral(" (<span style='color:%1'><b>|</b></span>&nbsp;")
          .arg(palette::kWarning.name()) +
      tr("out of range)"));
  m_legend->setTextFormat(Qt::RichText);
  m_legend->setWordWrap(true);
  return m_legend;
}

void FloatExplorer::buildActions() {
  auto add = [this](const QString& text, const QKeySequence& key, auto slot) {
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
  };
  // Up/Down step a ULP, except in the combo and spin boxes, which use them.
  auto stepOrForward = [this](int direction) {
    QWidget* focus = QApplication::focusWidget();
    if (auto* combo = qobject_cast<QComboBox*>(focus)) {
      combo->setCurrentIndex(std::clamp(combo->currentIndex() - direction, 0, combo->count() - 1));
      return;
    }
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(focus)) {
      spin->stepBy(direction);
      return;
    }
    stepSelected(direction);
  };
  add(tr("Next value up in the selected format (+1 ULP)"), QKeySequence(Qt::Key_Up),
      [stepOrForward] { stepOrForward(+1); });
  add(tr("Next value down in the selected format (−1 ULP)"), QKeySequence(Qt::Key_Down),
      [stepOrForward] { stepOrForward(-1); });
  auto move = [this](int delta) {
    const auto formats = numeric::explorerFormats();
    const auto it = std::find(formats.begin(), formats.end(), m_selected);
    const auto i = std::clamp<std::ptrdiff_t>((it - formats.begin()) + delta, 0,
                                              std::ptrdiff_t(formats.size()) - 1);
    selectFormat(formats[std::size_t(i)]);
  };
  add(tr("Select the format above"), QKeySequence(Qt::CTRL | Qt::Key_Up), [move] { move(-1); });
  add(tr("Select the format below"), QKeySequence(Qt::CTRL | Qt::Key_Down), [move] { move(+1); });
  add(tr("Edit the value"), QKeySequence(Qt::CTRL | Qt::Key_L), [this] {
    m_input->setFocus();
    m_input->selectAll();
  });
}

BlockView* FloatExplorer::openBlockView() {
  if (m_blockView == nullptr) {
    m_blockView = new BlockView(this);
    m_blockView->setWindowFlag(Qt::Window);
    m_blockView->resize(900, 700);
  }
  m_blockView->show();
  m_blockView->raise();
  m_blockView->activateWindow();
  return m_blockView;
}

FormatCard* FloatExplorer::card(numeric::FormatId id) const {
  for (FormatCard* c : m_cards)
    if (c->format().id == id)
      return c;
  return nullptr;
}

void FloatExplorer::selectFormat(numeric::FormatId id) {
  m_selected = id;
  for (FormatCard* c : m_cards)
    c->setSelected(c->format().id == id);
}

std::optional<numeric::FormatId> FloatExplorer::inputMode() const {
  const int mode = m_mode->currentData().toInt();
  return mode < 0 ? std::nullopt : std::optional(FormatId(mode));
}

void FloatExplorer::setInputMode(std::optional<numeric::FormatId> bitsOf) {
  m_mode->setCurrentIndex(m_mode->findData(bitsOf ? int(*bitsOf) : -1));
}

void FloatExplorer::applyInput() {
  const ExplorerInput parsed = parseExplorerInput(m_input->text(), inputMode());
  const QString error = m_model.setInput(m_input->text(), inputMode());
  m_inputValid = error.isEmpty();
  if (!m_inputValid)
    showMessage(error, true);
  else if (!parsed.note.isEmpty())
    showMessage(parsed.note, false);
  else
    showMessage(kHint, false);
  if (parsed.bitsFormat)
    selectFormat(*parsed.bitsFormat);
  refresh();
}

void FloatExplorer::applyOptions() {
  ExplorerOptions o;
  o.rounding = Rounding(m_rounding->currentData().toInt());
  o.flushSubnormals = m_ftz->isChecked();
  o.saturate = m_saturate->isChecked();
  o.seed = static_cast<std::uint32_t>(m_seed->value());
  m_seed->setEnabled(o.rounding == Rounding::Stochastic);
  m_model.setOptions(o);
  refresh();
}

void FloatExplorer::flipBit(numeric::FormatId id, int bit) {
  m_model.toggleBit(id, bit);
  showModelInField();
}

void FloatExplorer::step(numeric::FormatId id, int direction) {
  m_model.step(id, direction);
  showModelInField();
}

void FloatExplorer::stepSelected(int direction) {
  step(m_selected, direction);
}

void FloatExplorer::showModelInField() {
  {
    const QSignalBlocker blockMode(m_mode);
    setInputMode(std::nullopt);
  }
  m_input->setText(m_model.typedText());
  m_inputValid = true;
  showMessage(kHint, false);
  refresh();
}

void FloatExplorer::refresh() {
  const double typed = m_model.typed().approximate();
  for (FormatCard* c : m_cards) {
    if (m_inputValid)
      c->showReading(m_model.reading(c->format()), typed);
    else
      c->showNoValue(); // never the last good value beside an error
  }
  m_cardsArea->setEnabled(m_inputValid);
}

void FloatExplorer::addCard(const numeric::FloatFormat& format) {
  const numeric::FloatFormat& stored = m_model.addFormat(format);
  auto* card = new FormatCard(stored);
  m_cardsLayout->insertWidget(m_cardsLayout->count() - 1, card); // above the stretch
  m_cards.push_back(card);
  m_addedCards.push_back(card);
  layoutColumns();
  refresh();
}

void FloatExplorer::showMessage(const QString& text, bool error) {
  m_message->setText(text);
  m_message->setProperty("error", error);
  QPalette p = palette();
  p.setColor(QPalette::WindowText,
             error ? palette::kWarning : palette().color(QPalette::PlaceholderText));
  m_message->setPalette(p);
  m_message->setFont(Theme::instance().uiFont(error ? 1.1 : 0.95, error));
}

bool FloatExplorer::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_scroll->viewport() && event->type() == QEvent::Resize)
    layoutColumns();
  return QWidget::eventFilter(watched, event);
}

// Every card gets the same bit-cell width (rows line up bit for bit): as much
// as the cells want, leaving room for the details column beside them, or
// under them when the window is narrow.
void FloatExplorer::layoutColumns() {
  const Theme& t = Theme::instance();
  const int preferred = m_cards.front()->bitCells()->sizeHint().width();
  const int minimum = m_cards.front()->bitCells()->minimumSizeHint().width();
  const QFontMetrics mono(t.monospaceFont(1.1));
  const QFontMetrics ui(t.uiFont());
  const int details = mono.horizontalAdvance(QString(32, u'0')) +
                      ui.horizontalAdvance(QStringLiteral("stored")) + 10;
  const int buttons = static_cast<int>(40 * t.fontScale());
  const int chrome = 14 + 10 + 3 * 14 + 8; // card margins and column spacing
  const int beside =
      m_scroll->viewport()->width() - m_cards.front()->nameColumnWidth() - buttons - chrome;
  // Too narrow for details beside the bits: put them underneath.
  const bool compact = beside - details < minimum;
  const int width = compact ? std::clamp(beside, 200, preferred)
                            : std::clamp(beside - details, minimum, preferred);
  for (FormatCard* c : m_cards) {
    c->setCompact(compact);
    c->setBitsWidth(width);
  }
}

void FloatExplorer::applyFonts() {
  const Theme& t = Theme::instance();
  layoutColumns();
  m_input->setFont(t.monospaceFont(1.6));
  m_mode->setFont(t.uiFont(1.05));
  m_legend->setFont(t.uiFont(0.95));
  showMessage(m_message->text(), m_message->property("error").toBool());
}

} // namespace mantissa::ui
