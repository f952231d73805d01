#include "gui/plot_panel.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMarginsF>
#include <QMessageBox>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QPushButton>
#include <QVBoxLayout>

#include "gui/save_file.h"

namespace kvsim::gui {
namespace {

int or_default(int value, int fallback) { return value > 0 ? value : fallback; }

// The resolution of exports, as QCustomPlot's savePng records it in a PNG and savePdf draws on
// a 96-dpi screen; in dots per metre for the PNG.
constexpr int kExportDpi = 96;
constexpr int kPngDotsPerMeter = static_cast<int>(kExportDpi / 0.0254);

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

// QCustomPlot's savePng and savePdf write straight to the path (a failure leaves a truncated
// file), so the chart is rendered here as they render it and saved through save_file().
Status PlotPanel::save_png(const QString& path, int width, int height) const {
  QImage image =
      plot_->toPixmap(or_default(width, kExportWidth), or_default(height, kExportHeight)).toImage();
  image.setDotsPerMeterX(kPngDotsPerMeter);
  image.setDotsPerMeterY(kPngDotsPerMeter);
  return save_file(path, "PNG", [&image](QIODevice* device) {
    return !image.isNull() && image.save(device, "PNG");
  });
}

// As savePdf: one page of width x height points without margins, the chart's width x height
// pixels mapped onto it, drawn at 96 dpi (so a cosmetic 1-pixel pen is 0.75 pt wide).
Status PlotPanel::save_pdf(const QString& path, int width, int height) const {
  const int page_width = or_default(width, kExportWidth);
  const int page_height = or_default(height, kExportHeight);
  return save_file(path, "PDF", [&](QIODevice* device) {
    QPdfWriter writer(device);
    writer.setResolution(kExportDpi);
    writer.setPageLayout(QPageLayout(QPageSize(QSizeF(page_width, page_height), QPageSize::Point,
                                               QString(), QPageSize::ExactMatch),
                                     QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    QCPPainter painter;
    if (!painter.begin(&writer)) return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setWindow(0, 0, page_width, page_height);
    plot_->toPainter(&painter, page_width, page_height);
    return painter.end();
  });
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
