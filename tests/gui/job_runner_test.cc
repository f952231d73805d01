// JobRunner: a job runs on the worker thread to the end with its progress reported on the GUI
// thread; cancel stops it (within 5 s); a failing job reports its Status; one job at a time;
// the event loop keeps turning while a CPU-bound job runs. The timing_ functions measure wall
// clock and run apart from the others (tests/gui/test_main.h).
#include "gui/job_runner.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <atomic>
#include <chrono>
#include <thread>

#include "tests/gui/event_loop_probe.h"
#include "tests/gui/test_main.h"
#include "tests/gui/wait_for_cancel.h"

using kvsim::Status;
using kvsim::gui::JobContext;
using kvsim::gui::JobRunner;
using kvsim::gui::testing::wait_for_cancel;

namespace {

// Burns CPU for `ms` milliseconds, reporting progress often (as a simulator would).
Status busy_job(JobContext& context, int ms) {
  const auto start = std::chrono::steady_clock::now();
  const auto length = std::chrono::milliseconds(ms);
  volatile double sink = 0;
  for (;;) {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed >= length || context.cancel_requested()) break;
    for (int i = 0; i < 1000; ++i) sink = sink + i * 0.5;
    context.report_progress(std::chrono::duration<double>(elapsed) / length);
  }
  context.report_progress(1.0);
  return Status::ok();
}

}  // namespace

class JobRunnerTest : public QObject {
  Q_OBJECT

 private slots:
  void runs_to_the_end_with_progress() {
    JobRunner runner;
    QSignalSpy progress(&runner, &JobRunner::progress_changed);
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(runner.start("busy", [](JobContext& c) { return busy_job(c, 300); }));
    QVERIFY(runner.is_running());
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished[0][0].toString(), QString("busy"));
    QVERIFY(finished[0][1].toBool());   // ok
    QVERIFY(!finished[0][2].toBool());  // not cancelled
    QVERIFY(!runner.is_running());
    QVERIFY(progress.count() >= 2);
    double last = -1;
    for (const auto& args : progress) {
      QVERIFY(args[0].toDouble() >= last);
      last = args[0].toDouble();
    }
    QCOMPARE(last, 1.0);
  }

  void timing_cancel_stops_the_job() {
    JobRunner runner;
    QSignalSpy finished(&runner, &JobRunner::finished);
    std::atomic<bool> saw_cancel{false};
    QVERIFY(runner.start("forever", [&saw_cancel](JobContext& c) {
      saw_cancel = wait_for_cancel(c);
      return Status::ok();
    }));
    QTimer::singleShot(100, &runner, &JobRunner::cancel);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(finished.wait(20000));
    // 100 ms until the cancel, then a 1 ms poll: 5 s is a margin for a loaded machine.
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString("cancel took %1 ms").arg(clock.elapsed())));
    QVERIFY(saw_cancel.load());
    QVERIFY(!finished[0][1].toBool());  // not ok
    QVERIFY(finished[0][2].toBool());   // cancelled
  }

  void failure_reports_the_status() {
    JobRunner runner;
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(runner.start("bad", [](JobContext&) {
      return Status::invalid_argument("scenario.yaml:3:5: expected a number");
    }));
    QVERIFY(finished.wait(5000));
    QVERIFY(!finished[0][1].toBool());
    QVERIFY(!finished[0][2].toBool());
    QCOMPARE(finished[0][3].toString(), QString("scenario.yaml:3:5: expected a number"));
  }

  void one_job_at_a_time() {
    JobRunner runner;
    QSignalSpy finished(&runner, &JobRunner::finished);
    QVERIFY(runner.start("first", [](JobContext& c) { return busy_job(c, 200); }));
    QVERIFY(!runner.start("second", [](JobContext& c) { return busy_job(c, 10); }));
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.count(), 1);
    QVERIFY(runner.start("third", [](JobContext& c) { return busy_job(c, 10); }));
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished[1][0].toString(), QString("third"));
  }

  void timing_event_loop_keeps_turning() {
    JobRunner runner;
    QSignalSpy finished(&runner, &JobRunner::finished);
    kvsim::gui::testing::EventLoopProbe probe;
    QVERIFY(runner.start("busy", [](JobContext& c) { return busy_job(c, 1000); }));
    QVERIFY(finished.wait(10000));
    QVERIFY2(probe.max_blocked_ms() < kvsim::gui::testing::kMaxEventLoopGapMs,
             qPrintable(QString("event loop blocked %1 ms (gap %2 ms with the run-queue wait)")
                            .arg(probe.max_blocked_ms())
                            .arg(probe.max_gap_ms())));
    QVERIFY(probe.ticks() > 20);
  }

  void destructor_cancels_and_joins() {
    std::atomic<bool> ended{false};
    {
      JobRunner runner;
      QVERIFY(runner.start("forever", [&ended](JobContext& c) {
        ended = wait_for_cancel(c);  // false: the destructor joined without cancelling
        return Status::ok();
      }));
    }
    QVERIFY(ended.load());
  }
};

KVSIM_GUI_TEST_MAIN(JobRunnerTest)
#include "job_runner_test.moc"
