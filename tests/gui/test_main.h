// KVSIM_GUI_TEST_MAIN(TestClass): QTEST_MAIN for widget tests, plus a choice of test functions,
// so that CTest runs the wall-clock ones (event-loop gaps, cancel latency) apart from the rest:
//   --timing   only the test functions whose names start with "timing_"
//   --untimed  every other test function
// Without either, everything runs, as QTEST_MAIN does. Other arguments go to QTest. The
// timing functions run under the CTest label "serial" with RUN_SERIAL (tests/gui/CMakeLists.txt),
// so no CPU-heavy test runs beside them.
#pragma once

#include <QApplication>
#include <QMetaMethod>
#include <QStringList>
#include <QTest>

namespace kvsim::gui::testing {

// The test functions of `test` (its private slots, less Qt Test's own hooks and _data
// functions) whose timing_ prefix is `timing`.
inline QStringList test_functions(const QObject& test, bool timing) {
  static const QStringList kHooks = {"initTestCase", "cleanupTestCase", "init", "cleanup"};
  QStringList names;
  const QMetaObject* meta = test.metaObject();
  for (int i = meta->methodOffset(); i < meta->methodCount(); ++i) {
    const QMetaMethod method = meta->method(i);
    if (method.methodType() != QMetaMethod::Slot || method.access() != QMetaMethod::Private) {
      continue;
    }
    const QString name = QString::fromLatin1(method.name());
    if (kHooks.contains(name) || name.endsWith("_data")) continue;
    if (name.startsWith("timing_") == timing) names << name;
  }
  return names;
}

inline int run_test_functions(QObject* test, int argc, char** argv) {
  QStringList args;
  int selection = -1;  // -1 all, 0 untimed, 1 timing
  for (int i = 0; i < argc; ++i) {
    const QString arg = QString::fromLocal8Bit(argv[i]);
    if (arg == "--timing") {
      selection = 1;
    } else if (arg == "--untimed") {
      selection = 0;
    } else {
      args << arg;
    }
  }
  if (selection >= 0) {
    const QStringList names = test_functions(*test, selection == 1);
    if (names.isEmpty()) {
      qWarning("no test function selected by %s", selection == 1 ? "--timing" : "--untimed");
      return 1;
    }
    args << names;
  }
  return QTest::qExec(test, args);
}

}  // namespace kvsim::gui::testing

#define KVSIM_GUI_TEST_MAIN(TestClass)                                   \
  int main(int argc, char** argv) {                                      \
    QApplication app(argc, argv);                                        \
    app.setAttribute(Qt::AA_Use96Dpi, true);                             \
    TestClass test;                                                      \
    QTEST_SET_MAIN_SOURCE_PATH                                           \
    return ::kvsim::gui::testing::run_test_functions(&test, argc, argv); \
  }
