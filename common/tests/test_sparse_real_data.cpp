// The real inputs of labs 07 and 08 from Debian packages, when present: each reader parses its
// file with the sizes the file's authors give. Looked up in the data folder (CUDALAB_DATA_DIR, by
// default <source>/data, where scripts/fetch-data puts files) as matrices/NAME or graphs/NAME,
// then where the package installs it; a missing file prints "SKIPPED: data file not found" and
// CTest reports the test as skipped.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "cudalab/catch.h"
#include "cudalab/sparse/formats.h"
#include "cudalab/sparse/graph_io.h"
#include "cudalab/sparse/matrix_market.h"

#ifndef CUDALAB_DATA_DIR_DEFAULT
#define CUDALAB_DATA_DIR_DEFAULT "data"
#endif

using cudalab::sparse::CsrGraph;
using cudalab::sparse::CsrMatrix;

namespace {

// The file's path, or "" after printing the skip line.
std::string data_dir() {
  if (const char* env = std::getenv("CUDALAB_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return CUDALAB_DATA_DIR_DEFAULT;
}

// The file's path, or "" after printing the skip line. `name` is its name under the data folder.
std::string data_file(const std::string& name, const std::string& package_path) {
  for (const std::string& path : {data_dir() + "/" + name, package_path})
    if (std::filesystem::exists(path)) return path;
  std::cout << "SKIPPED: data file not found: " << name << " (nor " << package_path << ")\n";
  return "";
}

// r-cran-matrix's file `name`: its path, or "" after printing the skip line.
std::string r_matrix_file(const std::string& name) {
  return data_file("matrices/" + name, "/usr/lib/R/library/Matrix/external/" + name);
}

// Reads r-cran-matrix's file `name`, when present, and checks its size.
void check_r_matrix_size(const std::string& name, int rows, int cols, std::size_t nnz) {
  const std::string path = r_matrix_file(name);
  if (path.empty()) return;
  const CsrMatrix a = cudalab::sparse::coo_to_csr(cudalab::sparse::read_matrix_market_file(path));
  CHECK(a.rows == rows);
  CHECK(a.cols == cols);
  CHECK(a.nnz() == nnz);
}

}  // namespace

TEST_CASE("Real data: r-cran-matrix's pores_1.mtx (real general, 30 x 30, 180 entries)",
          "[common][sparse][data]") {
  check_r_matrix_size("pores_1.mtx", 30, 30, 180);
}

TEST_CASE("Real data: r-cran-matrix's jgl009.mtx (pattern, 9 x 9, 50 entries)",
          "[common][sparse][data]") {
  check_r_matrix_size("jgl009.mtx", 9, 9, 50);
}

TEST_CASE("Real data: r-cran-matrix's lund_a.mtx (real symmetric, 147 x 147)",
          "[common][sparse][data]") {
  const std::string path = r_matrix_file("lund_a.mtx");
  if (path.empty()) return;
  cudalab::sparse::MatrixMarketInfo info;
  const auto coo = cudalab::sparse::read_matrix_market_file(path, &info);
  CHECK(info.symmetry == cudalab::sparse::MmSymmetry::symmetric);
  CHECK(info.stored_entries == 1298);
  const CsrMatrix a = cudalab::sparse::coo_to_csr(coo);
  CHECK(a.rows == 147);
  CHECK(a.nnz() == 2 * 1298 - 147);  // every diagonal entry stored once
}

TEST_CASE("Real data: r-cran-matrix's wrong.mtx is refused with its line",
          "[common][sparse][data]") {
  const std::string path = r_matrix_file("wrong.mtx");
  if (path.empty()) return;
  try {
    cudalab::sparse::read_matrix_market_file(path);
    FAIL("wrong.mtx was accepted");
  } catch (const cudalab::sparse::ParseError& e) {
    CHECK(std::string(e.what()) == path + ":3: row index 0 is out of range 1..2");
  }
}

TEST_CASE("Real data: libmetis-doc graphs (4elt, copter2, mdual, test.mgraph)",
          "[common][sparse][data]") {
  struct Graph {
    const char* name;
    int vertices;
    long edges;
  };
  for (const Graph& g : {Graph{"4elt.graph", 7434, 43031}, Graph{"copter2.graph", 55476, 352238},
                         Graph{"mdual.graph", 258569, 513132}, Graph{"test.mgraph", 766, 1314}}) {
    CAPTURE(g.name);
    const std::string path =
        data_file(std::string("graphs/") + g.name,
                  std::string("/usr/share/doc/libmetis-dev/examples/graphs/") + g.name);
    if (path.empty()) continue;
    const CsrGraph csr =
        cudalab::sparse::read_graph_file(path, cudalab::sparse::GraphFormat::metis);
    CHECK(csr.num_vertices == g.vertices);
    CHECK(csr.num_arcs() == static_cast<std::size_t>(2 * g.edges));
    CHECK_NOTHROW(cudalab::sparse::validate(csr));
  }
}

TEST_CASE("Real data: r-cran-igraph's power.gml.gz (US power grid, 4941 vertices, 6594 edges)",
          "[common][sparse][data]") {
  const std::string path =
      data_file("graphs/power.gml.gz", "/usr/share/doc/r-cran-igraph/tests/testthat/power.gml.gz");
  if (path.empty()) return;
  if (!cudalab::sparse::gzip_supported()) {
    std::cout << "SKIPPED: data file not found: this build reads no .gz files (no zlib)\n";
    return;
  }
  const CsrGraph g = cudalab::sparse::read_graph_file(path);
  CHECK(g.num_vertices == 4941);
  CHECK(g.num_arcs() == 2 * 6594);
  const auto depth = cudalab::sparse::bfs_depths(g, 0);
  CHECK(std::count(depth.begin(), depth.end(), -1) == 0);  // connected
}

TEST_CASE("Real data: python3-networkx's WormNet edge list (gene names)",
          "[common][sparse][data]") {
  const std::string path =
      data_file("graphs/WormNet.v3.benchmark.txt",
                "/usr/share/doc/networkx-2.8.8/examples/algorithms/WormNet.v3.benchmark.txt");
  if (path.empty()) return;
  cudalab::sparse::EdgeListOptions options;
  options.ids = cudalab::sparse::VertexIds::names;
  const auto edges =
      cudalab::sparse::read_graph_edges(path, cudalab::sparse::GraphFormat::edge_list, options);
  CHECK(edges.num_edges() == 78736);
  const CsrGraph g = cudalab::sparse::to_undirected_csr(edges);
  CHECK(g.num_vertices == edges.num_vertices);
  CHECK_NOTHROW(cudalab::sparse::validate(g));
}
