// Checks on rendered images for the GUI tests: a chart that failed to draw is a blank (one
// colour) image, whose pixel variance is 0.
#pragma once

#include <QImage>

namespace kvsim::gui::testing {

// A picture with axes, text and data: grey-level variance well above this (0..255 scale).
inline constexpr double kMinPixelVariance = 50.0;

// Variance of the grey level (0..255) over all pixels.
inline double pixel_variance(const QImage& image) {
  const QImage grey = image.convertToFormat(QImage::Format_Grayscale8);
  double sum = 0;
  double sum_sq = 0;
  const double n = static_cast<double>(grey.width()) * grey.height();
  for (int y = 0; y < grey.height(); ++y) {
    const uchar* line = grey.constScanLine(y);
    for (int x = 0; x < grey.width(); ++x) {
      sum += line[x];
      sum_sq += static_cast<double>(line[x]) * line[x];
    }
  }
  const double mean = sum / n;
  return sum_sq / n - mean * mean;
}

}  // namespace kvsim::gui::testing
