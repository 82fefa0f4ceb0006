// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/panels/op_table_panel.h"

#include "ui/panels/matmul_rows.h"

#include <QBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QResizeEvent>
#include <QScrollBar>
#include <QTableWidget>
#include <QRegularExpression>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <array>
#include <vector>
#include <utility>

namespace mantissa::ui {

namespace {

// The precision table's columns.
constexpr int kOpColumn = 0;
constexpr int kPrecisionColumn = 1;
constexpr int kHowColumn = 2;
constexpr int kErrorColumn = 3; // last: the table's columns before it keep their places

QTableWidget* makeTable(const QStringList& headers) {
  auto* t = new QTableWidget(0, int(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->hide();
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionMode(QAbstractItemView::NoSelection);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
  for (int c = 0; c < cells.size(); ++c) {
    auto* item = t->item(row, c);
    if (!item) {
      item = new QTableWidgetItem;
      t->setItem(row, c, item);
    }
    item->setText(cells[c]);
  }
}

// A precision-table row: the "How" note may break after ':' and '_' as well
// (a zero-width space there), so that a kernel name such as
// "brg:avx512_core_bf16" wraps in a narrow column instead of being cut; its
// tooltip keeps the note as written.
void setPrecisionRow(QTableWidget* t, int row, const QString& op, const QString& precision,
                     const QString& how) {
  QString shown = how;
  shown.replace(u':', QStringLiteral(":\u200B")).replace(u'_', QStringLiteral("_\u200B"));
  setRow(t, row, {op, precision, shown, QStringLiteral("—")});
  t->item(row, kHowColumn)->setToolTip(how);
}

QString errorText(double x) {
  if (!std::isfinite(x))
    return QStringLiteral("inf");
  return x == 0.0 ? QStringLiteral("0") : QString::number(x, 'e', 1);
}

} // namespace

OpTablePanel::OpTablePanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("opTablePanel"));
  auto* layout = new QVBoxLayout(this);
  m_title = new QLabel(tr("Start a run to see which op runs in which precision."));
  m_title->setWordWrap(true);
  layout->addWidget(m_title);
  auto* row = new QBoxLayout(QBoxLayout::LeftToRight);
  m_tables = row;
  m_precision = makeTable({tr("Op"), tr("Precision"), tr("How"), tr("Error")});
  m_precision->horizontalHeaderItem(kErrorColumn)->setToolTip(errorColumnTip());
  m_precision->setObjectName(QStringLiteral("opPrecisionTable"));
  // The "How" notes take the rest of the width and wrap there, never cut at the edge.
  m_precision->setWordWrap(true);
  m_precision->horizontalHeader()->setSectionResizeMode(kHowColumn, QHeaderView::Stretch);
  // (A stretched last section keeps at least the default 100 px: in a narrow
  // dock it ended past the viewport's edge, cut. Stretch alone fills exactly.)
  m_precision->horizontalHeader()->setStretchLastSection(false);
  m_precision->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // The vertical bar always takes its width: the columns are fitted to a
  // viewport that does not narrow when rows, wrapped taller, start to scroll
  // (the notes' column then ended under the bar, cut).
  m_precision->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  connect(m_precision->horizontalHeader(), &QHeaderView::sectionResized, this,
          [this](int section) {
            if (section == kHowColumn) // the notes' new width wraps them to other heights
              QMetaObject::invokeMethod(m_precision, &QTableView::resizeRowsToContents,
                                        Qt::QueuedConnection);
          });
  // A narrow panel leaves no room for the notes beside the op names: the
  // selected op's note shows below the table instead (fitOpColumn).
  m_precision->setSelectionMode(QAbstractItemView::SingleSelection);
  m_precision->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_how = new QLabel;
  m_how->setWordWrap(true);
  m_how->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_how->setObjectName(QStringLiteral("opHowLabel"));
  m_how->hide();
  connect(m_precision, &QTableWidget::currentCellChanged, this,
          [this](int current) { showHowOf(current); });
  m_times = makeTable({tr("Op kind"), tr("ms / step"), tr("Share")});
  m_times->setObjectName(QStringLiteral("opTimeTable"));
  m_precision->viewport()->installEventFilter(this);
  m_precision->installEventFilter(this);
  auto* precision = new QVBoxLayout;
  precision->setContentsMargins(0, 0, 0, 0);
  precision->addWidget(m_precision, 1);
  precision->addWidget(m_how);
  row->addLayout(precision, 3);
  row->addWidget(m_times, 2);
  layout->addLayout(row, 1);
}

void OpTablePanel::setMatmuls(const std::vector<nn::MatmulUse>& uses) {
  m_precision->setRowCount(m_recipeRows + int(uses.size()));
  for (int i = 0; i < int(uses.size()); ++i) {
    const QStringList cells = matmulRow(uses[std::size_t(i)]);
    const QString how = cells[1] + QStringLiteral("; ") + cells[3];
    setPrecisionRow(m_precision, m_recipeRows + i, tr("matmul: %1").arg(cells[0]), cells[2], how);
  }
  showShadow();
  m_precision->resizeColumnsToContents();
  fitTables();
  fitOpColumn();
}

void OpTablePanel::setRun(const amp::Recipe& recipe, const QString& backend,
                          const QString& scaler,
                          const std::vector<std::array<QString, 3>>& modelRows) {
  m_title->setText(tr("<b>%1</b>: %2<br>Matmul: %3%4")
                       .arg(QString::fromUtf8(recipe.name.data(), qsizetype(recipe.name.size())),
                            QString::fromUtf8(recipe.summary.data(),
                                              qsizetype(recipe.summary.size())).toHtmlEscaped(),
                            backend.toHtmlEscaped(),
                            scaler.isEmpty() ? QString()
                                             : tr("<br>Loss scaler: %1").arg(scaler.toHtmlEscaped())));
  const auto rows = amp::recipeTable(recipe);
  m_recipeRows = int(rows.size() + modelRows.size());
  m_precision->setRowCount(m_recipeRows);
  for (int i = 0; i < int(rows.size()); ++i) {
    const auto& r = rows[std::size_t(i)];
    setPrecisionRow(m_precision, i, QString::fromStdString(r.op),
                    QString::fromStdString(r.precision), QString::fromStdString(r.note));
  }
  for (std::size_t j = 0; j < modelRows.size(); ++j) {
    const int i = int(rows.size() + j);
    setPrecisionRow(m_precision, i, modelRows[j][0], modelRows[j][1], modelRows[j][2]);
  }
  showShadow();
  m_precision->resizeColumnsToContents();
  fitTables();
  fitOpColumn();
}

void OpTablePanel::setRun(const QString& title, const std::vector<std::array<QString, 3>>& rows,
                          const QString& backend, const QString& scaler) {
  m_title->setText(tr("<b>%1</b>: precisions as recorded<br>Matmul: %2%3")
                       .arg(title.toHtmlEscaped(), backend.toHtmlEscaped(),
                            scaler.isEmpty() ? QString()
                                             : tr("<br>Loss scaler: %1").arg(scaler.toHtmlEscaped())));
  m_recipeRows = int(rows.size());
  m_precision->setRowCount(m_recipeRows);
  for (int i = 0; i < int(rows.size()); ++i) {
    const auto& r = rows[std::size_t(i)];
    setPrecisionRow(m_precision, i, r[0], r[1], r[2]);
  }
  showShadow();
  m_precision->resizeColumnsToContents();
  fitTables();
  fitOpColumn();
}

// On a narrow panel (the Setup column of a short page) the op names wrap
// onto two lines rather than pushing the precision column out of sight; the
// "How" notes wrap in whatever width is left (at least kHowChars characters).
//
// Narrower than the op names' longest word, the precision and kHowChars of
// notes together, the "How" column gives way: the op names take the width
// the precision leaves, and the selected op's note shows below the table.
void OpTablePanel::fitOpColumn() {
  constexpr int kHowChars = 14;
  auto* header = m_precision->horizontalHeader();
  const auto* view = static_cast<const QAbstractItemView*>(m_precision); // (protected in QTableView)
  const int natural = std::max(view->sizeHintForColumn(0), header->sectionSizeHint(0));
  const QFontMetrics metrics = m_precision->fontMetrics();
  const int how = kHowChars * metrics.averageCharWidth();
  int longestWord = header->minimumSectionSize();
  for (int row = 0; row < m_precision->rowCount(); ++row)
    if (const QTableWidgetItem* item = m_precision->item(row, 0))
      for (const QString& word : item->text().split(u' ', Qt::SkipEmptyParts))
        longestWord = std::max(longestWord, metrics.horizontalAdvance(word) + 12);
  // The width inside the frame and the (always shown) scroll bar: the
  // viewport's own width lags behind while the dock is laid out.
  const int inside = m_precision->width() - 2 * m_precision->frameWidth() -
                     m_precision->verticalScrollBar()->sizeHint().width();
  const int fixed = header->sectionSize(kPrecisionColumn) + header->sectionSize(kErrorColumn);
  const bool narrow = inside - fixed - how < longestWord;
  if (narrow != m_precision->isColumnHidden(kHowColumn)) {
    m_precision->setColumnHidden(kHowColumn, narrow);
    m_how->setVisible(narrow);
  }
  if (narrow)
    showHowOf(m_precision->currentRow());
  const int room = inside - fixed - (narrow ? 0 : how);
  const int width = natural > room ? std::max(room, header->minimumSectionSize()) : natural;
  if (width != header->sectionSize(0))
    m_precision->setColumnWidth(0, width);
  m_precision->resizeRowsToContents();
}

void OpTablePanel::showHowOf(int row) {
  const QTableWidgetItem* op = row >= 0 ? m_precision->item(row, 0) : nullptr;
  const QTableWidgetItem* how = row >= 0 ? m_precision->item(row, kHowColumn) : nullptr;
  m_how->setText(op && how ? QStringLiteral("<b>%1</b>: %2").arg(op->text().toHtmlEscaped(),
                                                                 how->toolTip().toHtmlEscaped())
                           : tr("Select an op to read how it runs."));
}

bool OpTablePanel::eventFilter(QObject* watched, QEvent* event) {
  if ((watched == m_precision->viewport() || watched == m_precision) &&
      event->type() == QEvent::Resize)
    fitOpColumn();
  return QWidget::eventFilter(watched, event);
}

// Side by side when the op, its precision and the whole time table fit the
// panel's width; one above the other otherwise (a narrow dock at presenter
// type), so neither cuts a column in the middle. The "How" notes may scroll.
void OpTablePanel::fitTables() {
  const auto columns = [](const QTableWidget* t, int count) {
    int w = 2 * t->frameWidth() + t->verticalScrollBar()->sizeHint().width();
    for (int c = 0; c < std::min(count, t->columnCount()); ++c)
      w += t->horizontalHeader()->sectionSize(c);
    return w;
  };
  const int needed = columns(m_precision, kHowColumn) +
                     m_precision->horizontalHeader()->sectionSize(kErrorColumn) + columns(m_times, m_times->columnCount()) +
                     m_tables->spacing() + contentsMargins().left() + contentsMargins().right() +
                     layout()->contentsMargins().left() + layout()->contentsMargins().right();
  const auto direction = width() >= needed ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
  if (m_tables->direction() != direction)
    m_tables->setDirection(direction);
}

void OpTablePanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitTables();
}

QString OpTablePanel::errorColumnTip() {
  return tr("Tensor error ‖a − r‖ / ‖r‖ of the tensor the op writes, against the shadow "
            "reference (FP32 or FP64) at the latest shadow step: a matmul's forward row shows "
            "its layer's output, its dW row the weight's gradient, its dX row the gradient of the "
            "layer below's output (after that layer's activation); the activations and gradients "
            "rows show the worst forward / backward tensor, named in the cell's tooltip. — where "
            "no compared tensor maps to the op, or before the first shadow step (Setup > Shadow "
            "reference, or Check Against Reference Now).");
}

// The tensors of the latest frame an op row stands for (see errorColumnTip()).
std::vector<const train::ShadowError*> OpTablePanel::tensorsOf(const QString& op) const {
  std::vector<const train::ShadowError*> out;
  if (!m_shadow)
    return out;
  const auto named = [&](const std::string& name) {
    for (const auto& e : m_shadow->tensors)
      if (e.tensor == name)
        out.push_back(&e);
  };
  static const QRegularExpression matmul(QStringLiteral("^matmul: layer (\\d+) (forward|dX|dW)$"));
  if (const auto m = matmul.match(op); m.hasMatch()) {
    const int layer = m.captured(1).toInt();
    const QString product = m.captured(2);
    if (product == QStringLiteral("forward"))
      named("layer" + std::to_string(layer) + " output");
    else if (product == QStringLiteral("dW"))
      named("layer" + std::to_string(layer) + ".W gradient");
    else if (layer > 0)
      named("layer" + std::to_string(layer - 1) + " output gradient");
    return out;
  }
  const bool activations = op.startsWith(QStringLiteral("activations"));
  const bool gradients = op == QStringLiteral("gradients");
  if (activations || gradients)
    for (const auto& e : m_shadow->tensors)
      if (e.backward == gradients)
        out.push_back(&e);
  return out;
}

void OpTablePanel::setShadowFrame(std::shared_ptr<const train::ShadowFrame> frame) {
  m_shadow = std::move(frame);
  showShadow();
}

void OpTablePanel::showShadow() {
  for (int row = 0; row < m_precision->rowCount(); ++row) {
    const QTableWidgetItem* op = m_precision->item(row, kOpColumn);
    QTableWidgetItem* cell = m_precision->item(row, kErrorColumn);
    if (!op || !cell)
      continue;
    const auto tensors = tensorsOf(op->text());
    const train::ShadowError* worst = nullptr;
    for (const train::ShadowError* e : tensors)
      if (!worst || !(e->tensorRelative <= worst->tensorRelative)) // inf wins
        worst = e;
    if (!worst) {
      cell->setText(QStringLiteral("—"));
      cell->setToolTip(m_shadow ? tr("No compared tensor maps to this op") : errorColumnTip());
      continue;
    }
    cell->setText(errorText(worst->tensorRelative));
    cell->setToolTip(tr("%1: tensor error %2 at step %3%4")
                         .arg(QString::fromStdString(worst->tensor), errorText(worst->tensorRelative))
                         .arg(m_shadow->step)
                         .arg(tensors.size() > 1 ? tr(" (the worst of %1 tensors)").arg(tensors.size())
                                                 : QString()));
  }
  m_precision->resizeColumnToContents(kErrorColumn);
}

QString OpTablePanel::errorOf(int row) const {
  const QTableWidgetItem* cell = m_precision->item(row, kErrorColumn);
  return cell ? cell->text() : QString();
}

void OpTablePanel::setTimes(const model::OpTimes& t, bool recorded) {
  std::vector<std::pair<QString, double>> kinds{
      {tr("matmul forward"), t.matmulForward},
      {tr("matmul backward"), t.matmulBackward},
  };
  if (t.convForward > 0.0 || t.convBackward > 0.0) { // a model with convolutions
    kinds.push_back({tr("convolution forward"), t.convForward});
    kinds.push_back({tr("convolution backward"), t.convBackward});
  }
  kinds.insert(kinds.end(), {{tr("conversion"), t.conversion},
                             {tr("elementwise"), t.elementwise},
                             {tr("loss"), t.loss},
                             {tr("optimizer"), t.optimizer},
                             {tr("telemetry"), t.telemetry},
                             {tr("data"), t.data}});
  const double total = t.total();
  m_times->setRowCount(int(kinds.size()) + 1);
  for (int i = 0; i < int(kinds.size()); ++i) {
    const auto& [name, ms] = kinds[std::size_t(i)];
    setRow(m_times, i,
           {name, QString::number(ms, 'f', 3),
            total > 0 ? QStringLiteral("%1 %").arg(100.0 * ms / total, 0, 'f', 1) : QString()});
  }
  setRow(m_times, int(kinds.size()), {tr("whole step"), QString::number(total, 'f', 3), QString()});
  const QString absent = tr("This run's log records no per-op times (its steps have no "
                            "breakdown_ms)");
  for (int row = 0; row < m_times->rowCount(); ++row)
    for (int col = 1; col < m_times->columnCount(); ++col)
      if (QTableWidgetItem* item = m_times->item(row, col)) {
        item->setText(recorded ? item->text() : QStringLiteral("—"));
        item->setToolTip(recorded ? QString() : absent);
      }
  m_times->resizeColumnsToContents();
  fitTables();
}

} // namespace mantissa::ui
