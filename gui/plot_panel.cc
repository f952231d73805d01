#include "gui/plot_panel.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace kvsim::gui {
namespace {

int or_default(int value, int fallback) { return value > 0 ? value : fallback; }

}  // namespace

PlotPanel::PlotPanel(const QString& name, const QString& title, QWidget* parent)
    : QWidget(parent), name_(name), plot_(new QCustomPlot(this)) {
  setObjectName(name + "_panel");
  plot_->setObjectName(name + "_plot");
  plot_->setMinimumSize(320, 220);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // Series of tens of thousands of points must replot in a few milliseconds (the event loop
  // must not stall): 1-pixel solid lines take Qt's fast polyline path.
  plot_->setPlottingHint(QCP::phFastPolylines, true);

  auto* header = new QHBoxLayout;
  auto* label = new QLabel("<b>" + title.toHtmlEscaped() + "</b>", this);
  header->addWidget(label, 1);
  const std::pair<const char*, void (PlotPanel::*)()> buttons[] = {{"PNG", &PlotPanel::export_png},
                                                                   {"PDF", &PlotPanel::export_pdf},
                                                                   {"CSV", &PlotPanel::export_csv}};
  for (const auto& [text, slot] : buttons) {
    auto* button = new QPushButton(text, this);
    button->setObjectName(name + "_export_" + QString(text).toLower());
    button->setToolTip(QString("Export this chart as %1").arg(text));
    connect(button, &QPushButton::clicked, this, slot);
    header->addWidget(button);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(header);
  layout->addWidget(plot_, 1);
}

void PlotPanel::set_table(TableSource source) {
  source_ = std::move(source);
  table_.reset();
}

const CsvTable& PlotPanel::table() const {
  if (!table_) table_ = source_ ? source_() : CsvTable{};
  return *table_;
}

Status PlotPanel::save_png(const QString& path, int width, int height) const {
  if (!plot_->savePng(path, or_default(width, kExportWidth), or_default(height, kExportHeight))) {
    return Status::io_error(path.toStdString() + ": cannot write PNG");
  }
  return Status::ok();
}

Status PlotPanel::save_pdf(const QString& path, int width, int height) const {
  if (!plot_->savePdf(path, or_default(width, kExportWidth), or_default(height, kExportHeight))) {
    return Status::io_error(path.toStdString() + ": cannot write PDF");
  }
  return Status::ok();
}

Status PlotPanel::save_csv(const QString& path) const {
  return write_csv(table(), path.toStdString());
}

QString PlotPanel::ask_path(const QString& suffix, const QString& filter) {
  return QFileDialog::getSaveFileName(this, "Export " + name_, name_ + "." + suffix, filter);
}

void PlotPanel::report(const Status& status) {
  if (!status.is_ok()) {
    QMessageBox::warning(this, "Export failed", QString::fromStdString(status.message()));
  }
}

void PlotPanel::export_png() {
  const QString path = ask_path("png", "PNG images (*.png)");
  if (!path.isEmpty()) report(save_png(path, plot_->width(), plot_->height()));
}

void PlotPanel::export_pdf() {
  const QString path = ask_path("pdf", "PDF documents (*.pdf)");
  if (!path.isEmpty()) report(save_pdf(path, plot_->width(), plot_->height()));
}

void PlotPanel::export_csv() {
  const QString path = ask_path("csv", "CSV files (*.csv)");
  if (!path.isEmpty()) report(save_csv(path));
}

}  // namespace kvsim::gui
