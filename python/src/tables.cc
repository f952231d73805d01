#include "python/src/tables.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>
#include <string>

namespace py = pybind11;

namespace kvsim::python {
namespace {

template <typename T>
py::array_t<T> array_of(const std::vector<T>& values) {
  return py::array_t<T>(static_cast<py::ssize_t>(values.size()), values.data());
}

template <typename Row>
std::vector<std::string> names_of(std::span<const sim::TableColumn<Row>> columns) {
  std::vector<std::string> names;
  for (const sim::TableColumn<Row>& column : columns) names.emplace_back(column.name);
  return names;
}

}  // namespace

template <typename Row>
ColumnArrays<Row>::ColumnArrays(std::span<const sim::TableColumn<Row>> columns)
    : columns_(columns), integers_(columns.size()), numbers_(columns.size()) {}

template <typename Row>
void ColumnArrays<Row>::append(const Row& row) {
  for (size_t i = 0; i < columns_.size(); ++i) {
    const sim::TableColumn<Row>& column = columns_[i];
    if (column.integer != nullptr) {
      integers_[i].push_back(column.integer(row));
    } else {
      numbers_[i].push_back(column.number(row).value_or(std::numeric_limits<double>::quiet_NaN()));
    }
  }
}

template <typename Row>
py::dict ColumnArrays<Row>::to_numpy() const {
  py::dict out;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const py::str name(columns_[i].name.data(), columns_[i].name.size());
    if (columns_[i].integer != nullptr) {
      out[name] = array_of(integers_[i]);
    } else {
      out[name] = array_of(numbers_[i]);
    }
  }
  return out;
}

template class ColumnArrays<sim::RequestRow>;
template class ColumnArrays<sim::SeriesRow>;

py::dict table_column_names() {
  py::dict out;
  out["requests"] = names_of(sim::request_columns());
  out["timeseries"] = names_of(sim::timeseries_columns());
  return out;
}

}  // namespace kvsim::python
