#include "gui/render.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QPixmap>
#include <QWidget>

#include "core/cache/block_demo.h"
#include "gui/block_demo_view.h"
#include "gui/capacity_view.h"
#include "gui/job_runner.h"
#include "gui/layout_view.h"
#include "gui/plot_panel.h"
#include "gui/ppl_view.h"
#include "gui/save_file.h"
#include "gui/scenario_views.h"
#include "gui/simulation_view.h"
#include "gui/teaching_view.h"

namespace kvsim::gui {
namespace {

// Remembers the first failure while every picture is still attempted.
class Outcome {
 public:
  void add(const Status& status, const QString& path, QStringList* written) {
    if (status.is_ok()) {
      written->push_back(path);
    } else if (first_.is_ok()) {
      first_ = status.with_context(QFileInfo(path).fileName().toStdString());
    }
  }
  void fail(const Status& status, const QString& what) {
    if (first_.is_ok()) first_ = status.with_context(what.toStdString());
  }
  const Status& status() const { return first_; }

 private:
  Status first_;
};

Status view_error(const QString& error) {
  return error.isEmpty() ? Status::ok() : Status::invalid_argument(error.toStdString());
}

void render_simulation(const ScenarioDocument& document, const QDir& out, Outcome* outcome,
                       QStringList* written) {
  auto run = run_scenario(document.tree, document.name, document.base_dir, nullptr, nullptr);
  if (!run.is_ok()) {
    outcome->fail(run.status(), "memory.png, throughput.png, latency.png, cost.png");
    return;
  }
  JobRunner runner;
  SimulationView view(&runner);
  view.add_run(std::move(run).value());
  for (PlotPanel* panel : view.panels()) {
    if (panel->name() == "requests") continue;
    const QString path = out.filePath(panel->name() + ".png");
    outcome->add(panel->save_png(path, kRenderChartSize.width(), kRenderChartSize.height()), path,
                 written);
  }
}

void render_ppl(const QDir& out, uint64_t max_tokens, Outcome* outcome, QStringList* written) {
  const QString path = out.filePath("ppl.png");
  PplStudyInput input;
  input.max_tokens = max_tokens;
  auto study = run_ppl_study(input, nullptr, nullptr);
  if (!study.is_ok()) {
    outcome->fail(study.status(), "ppl.png");
    return;
  }
  JobRunner runner;
  PplView view(&runner);
  view.show_study(std::move(study).value());
  outcome->add(view.panel()->save_png(path, kRenderChartSize.width(), kRenderChartSize.height()),
               path, written);
}

QString step_file_name(size_t step) {
  return QString("blocks-step-%1.png").arg(step + 1, 2, 10, QChar('0'));
}

// Every step of the blocks demo under `eviction`, each its own picture.
void render_block_steps(EvictionKind eviction, const QDir& out, Outcome* outcome,
                        QStringList* written) {
  BlockDemoView view;
  view.set_eviction(eviction);
  if (!view.data()) {
    outcome->fail(view_error(view.error_text()), "blocks-step-*.png");
    return;
  }
  for (size_t step = 0; step < view.data()->steps.size(); ++step) {
    view.set_step(static_cast<int>(step));
    const QString path = out.filePath(step_file_name(step));
    outcome->add(save_view_png(&view, kRenderStepSize, path), path, written);
  }
}

}  // namespace

QStringList render_file_names() {
  QStringList names = {"capacity.png", "memory.png", "throughput.png", "latency.png",
                       "cost.png",     "ppl.png",    "layout.png"};
  const auto demo = run_block_demo();
  for (size_t step = 0; demo.is_ok() && step < demo->steps.size(); ++step) {
    names << step_file_name(step);
  }
  return names;
}

Status save_view_png(QWidget* view, QSize size, const QString& path) {
  view->resize(size);
  view->show();
  QApplication::processEvents();
  for (PlotPanel* panel : view->findChildren<PlotPanel*>()) {
    panel->plot()->replot(QCustomPlot::rpImmediateRefresh);
  }
  QApplication::processEvents();
  const QPixmap picture = view->grab();
  return save_file(path, "PNG", [&picture](QIODevice* device) {
    return !picture.isNull() && picture.save(device, "PNG");
  });
}

Status render_all(const QString& scenario, const QString& out_dir, QStringList* written,
                  uint64_t ppl_max_tokens) {
  if (!QDir().mkpath(out_dir)) return Status::io_error(out_dir.toStdString() + ": cannot create");
  const QDir out(out_dir);
  KVSIM_ASSIGN_OR_RETURN(ScenarioDocument document, open_scenario(scenario.toStdString()));
  Outcome outcome;
  auto views = views_for_scenario(document);
  if (views.is_ok()) {
    CapacityView capacity;
    capacity.set_input(views->capacity);
    const QString capacity_path = out.filePath("capacity.png");
    Status shown = view_error(capacity.error_text());
    outcome.add(shown.is_ok() ? save_view_png(&capacity, kRenderViewSize, capacity_path) : shown,
                capacity_path, written);
  } else {
    outcome.fail(views.status(), "capacity.png, layout.png");
  }
  render_simulation(document, out, &outcome, written);
  render_ppl(out, ppl_max_tokens, &outcome, written);
  if (views.is_ok()) {
    TeachingView teaching;
    teaching.block_demo_view()->set_eviction(views->eviction);
    if (const auto& demo = teaching.block_demo_view()->data()) {
      teaching.block_demo_view()->set_step(static_cast<int>(featured_step(*demo)));
    }
    teaching.layout_view()->set_input(views->layout);
    const QString layout_path = out.filePath("layout.png");
    Status shown =
        view_error(teaching.layout_view()->error_text() + teaching.block_demo_view()->error_text());
    outcome.add(shown.is_ok() ? save_view_png(&teaching, kRenderViewSize, layout_path) : shown,
                layout_path, written);
    render_block_steps(views->eviction, out, &outcome, written);
  }
  return outcome.status();
}

}  // namespace kvsim::gui
