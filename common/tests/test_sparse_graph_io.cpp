// Graph readers (METIS, GML, edge lists) and the undirected CSR graph: what each reads, one clear
// line naming the line and the problem for each malformed file, self-loops and duplicates.
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/sparse/graph.h"
#include "cudalab/sparse/graph_io.h"
#include "test_sparse_support.h"

using namespace cudalab::sparse;  // the library under test
using sparse_test::contains;
using sparse_test::parse_error_of;

namespace {

using Edges = std::vector<std::pair<index_t, index_t>>;

Edges pairs(const EdgeList& g) {
  Edges out;
  for (std::size_t k = 0; k < g.num_edges(); ++k) out.emplace_back(g.src[k], g.dst[k]);
  return out;
}

struct ErrorCase {
  std::string text;
  std::size_t line;
  std::string problem;
};

template <typename Parse>
void check_errors(const std::vector<ErrorCase>& cases, const std::string& source, Parse parse) {
  for (const ErrorCase& c : cases) {
    CAPTURE(c.text);
    const auto caught = parse_error_of([&] { parse(c.text); });
    CAPTURE(caught.what);
    REQUIRE(caught.thrown);
    CHECK(caught.line == c.line);
    CHECK(caught.what.rfind(source + ":" + std::to_string(c.line) + ": ", 0) == 0);
    CHECK(contains(caught.what, c.problem));
  }
}

}  // namespace

// ---- METIS -----------------------------------------------------------------------------------

TEST_CASE("METIS: adjacency lines with comments and an isolated vertex",
          "[common][sparse][metis]") {
  // 1 - 2 - 3, 1 - 3, vertex 4 isolated (blank line), comments anywhere.
  const EdgeList g = parse_metis(
      "% a triangle and an isolated vertex\n"
      "4 3\n"
      "2 3\n"
      "% comment between vertex lines\n"
      "1 3\n"
      "1 2\n"
      "\n",
      "t.graph");
  CHECK(g.num_vertices == 4);
  CHECK(pairs(g) == Edges{{0, 1}, {0, 2}, {1, 2}});
  const CsrGraph csr = to_undirected_csr(g);
  CHECK(csr.row_ptr == std::vector<index_t>{0, 2, 4, 6, 6});
  CHECK(csr.col_idx == std::vector<index_t>{1, 2, 0, 2, 0, 1});
}

TEST_CASE("METIS: vertex sizes, vertex weights (ncon) and edge weights are skipped",
          "[common][sparse][metis]") {
  const Edges triangle = {{0, 1}, {0, 2}, {1, 2}};
  // Edge weights (fmt 1 / 001).
  CHECK(pairs(parse_metis("3 3 1\n2 5 3 6\n1 5 3 7\n1 6 2 7\n", "w")) == triangle);
  CHECK(pairs(parse_metis("3 3 001\n2 5 3 6\n1 5 3 7\n1 6 2 7\n", "w")) == triangle);
  // Two vertex weights (fmt 010, ncon 2), as in libmetis-doc's test.mgraph.
  CHECK(pairs(parse_metis("3 3 010 2\n1 1 2 3\n4 4 1 3\n2 2 1 2\n", "w")) == triangle);
  // Size, one vertex weight and edge weights (fmt 111).
  CHECK(pairs(parse_metis("3 3 111\n9 1 2 5 3 6\n9 1 1 5 3 7\n9 1 1 6 2 7\n", "w")) == triangle);
  // Vertex weights with an otherwise isolated vertex.
  const EdgeList g = parse_metis("3 1 10\n1 2\n1 1\n5\n", "w");
  CHECK(g.num_vertices == 3);
  CHECK(pairs(g) == Edges{{0, 1}});
}

TEST_CASE("METIS: malformed files give one line naming the line and the problem",
          "[common][sparse][metis]") {
  check_errors(
      {
          {"", 1, "missing header line"},
          {"% only a comment\n", 1, "missing header line"},
          {"3\n", 1, "bad header: expected 'vertices edges [fmt [ncon]]', found 1 fields"},
          {"3 2 1 1 1\n", 1, "found 5 fields"},
          {"x 2\n", 1, "vertex count 'x' is not an integer"},
          {"3 -2\n", 1, "edge count '-2' is not an integer"},
          {"3 2 2\n", 1, "fmt '2' must be up to three 0/1 digits"},
          {"3 2 1111\n", 1, "fmt '1111' must be up to three 0/1 digits"},
          {"3 2 1 2\n", 1, "ncon is given but fmt '1' has no vertex weights"},
          {"3 2 10 0\n", 1, "ncon '0' must be a positive integer"},
          {"3 2\n2\n1 3\n", 3, "file ends after 2 of the 3 vertex lines declared on line 1"},
          {"2 1\n2\n1\n1\n", 4, "more vertex lines than the 2 declared on line 1"},
          {"2 1\n3\n1\n", 2, "vertex 1: neighbour 3 is out of range 1..2"},
          {"2 1\n0\n1\n", 2, "vertex 1: neighbour 0 is out of range 1..2"},
          {"2 1\n2\nx\n", 3, "vertex 2: neighbour 'x' is not an integer"},
          {"2 1\n2\n1 2\n", 3, "vertex 2 lists itself"},
          {"3 3\n2 3\n1 3\n1 2\n1\n", 5, "more vertex lines"},
          {"3 2\n2 3\n1 3\n1 2\n", 1,
           "header declares 2 edges, so the adjacency lists should hold 4 entries; they hold 6"},
          {"3 2\n2 3\n1\n2\n", 2, "vertex 1 lists 3 but vertex 3 does not list 1"},
          {"3 2\n2\n1 3\n1\n", 4, "vertex 3 lists 1 but vertex 1 does not list 3"},
          {"3 2\n2\n3\n2 2\n", 2, "vertex 1 lists 2 but vertex 2 does not list 1 as often"},
          {"3 2 1\n2 1 3\n1 1\n1 1\n", 2, "vertex 1: neighbour without its edge weight"},
          {"3 2 1\n2 1 3 x\n1 1\n1 1\n", 2, "edge weight 'x' is not an integer"},
          {"2 1 10 2\n1\n1 1\n", 2, "vertex 1: expected 2 size/weight fields"},
          {"2 1 10\n2\n\n", 3, "empty line, but fmt asks for 1 size/weight fields"},
          {"2 1 10\nw 2\n1 1\n", 2, "vertex 1: weight 'w' is not an integer"},
      },
      "t.graph", [](const std::string& text) { parse_metis(text, "t.graph"); });
}

// ---- GML -------------------------------------------------------------------------------------

TEST_CASE("GML: the igraph/Newman subset with attributes, strings and nested lists skipped",
          "[common][sparse][gml]") {
  const std::string text = R"(Creator "igraph version 0.10 [with brackets] in a string"
Version 1
# a comment line
graph
[
  directed 1
  label "multi
line [string]"
  node [ id 10 label "ten" value 7 ]
  node
  [
    id 20
    graphics [ x 1.5 y -2 fill "#ff0000" inner [ a 1 ] ]
  ]
  node [ id 30 ]
  edge [ source 10 target 20 weight 0.5 ]
  edge
  [
    source 30
    target 10
    label "e"
  ]
  edge [ target 30 source 30 ]
]
)";
  const EdgeList g = parse_gml(text, "t.gml");
  CHECK(g.directed);
  CHECK(g.num_vertices == 3);
  CHECK(pairs(g) == Edges{{0, 1}, {2, 0}, {2, 2}});
  const EdgeList u = parse_gml("graph [ node [ id 0 ] ]", "t.gml");
  CHECK_FALSE(u.directed);
  CHECK(u.num_vertices == 1);
  CHECK(u.num_edges() == 0);
  // Edges may come before the nodes they name.
  const EdgeList late =
      parse_gml("graph [ edge [ source 1 target 0 ] node [ id 0 ] node [ id 1 ] ]", "t.gml");
  CHECK(pairs(late) == Edges{{1, 0}});
}

TEST_CASE("GML: malformed files give one line naming the line and the problem",
          "[common][sparse][gml]") {
  check_errors(
      {
          {"", 1, "no 'graph [ ... ]' block"},
          {"Creator \"x\"\nVersion 1\n", 1, "no 'graph [ ... ]' block"},
          {"graph 3\n", 1, "'graph' must be followed by '['"},
          {"graph [\n node [ id 0 ]\n", 1, "'graph [' opened here is never closed"},
          {"graph [\n node [ id 0 label [ a 1 ]\n", 2, "'node [' opened here is never closed"},
          {"graph [\n node [ id 0 ]\n edge [ source 0 target 1 ]\n]\n", 3,
           "edge target 1 is not the id of any node"},
          {"graph [\n node [ id 0 ]\n edge [ source 5 target 0 ]\n]\n", 3,
           "edge source 5 is not the id of any node"},
          {"graph [\n node [ label \"a\" ]\n]\n", 2, "node without an id"},
          {"graph [\n node [ id 0 ]\n node [ id 0 ]\n]\n", 3, "node id 0 is used twice"},
          {"graph [\n node [ id 0 id 1 ]\n]\n", 2, "node has two ids"},
          {"graph [\n node [ id 0 ]\n edge [ source 0 ]\n]\n", 3, "edge without a target"},
          {"graph [\n node [ id 0 ]\n edge [ target 0 ]\n]\n", 3, "edge without a source"},
          {"graph [\n node [ id 1.5 ]\n]\n", 2, "value of 'id' must be an integer, found '1.5'"},
          {"graph [\n node [ id \"a\" ]\n]\n", 2,
           "value of 'id' must be an integer, found a string"},
          {"graph [\n directed 2\n]\n", 2, "directed must be 0 or 1"},
          {"graph [ ]\n]\n", 2, "unexpected ']'"},
          {"graph [\n label \"open\n]\n", 2, "string opened here is never closed"},
          {"graph [\n node [ id 0 ]\n]\ngraph [ ]\n", 4, "more than one graph block"},
          {"graph [\n label ]\n", 2, "key 'label' has no value"},
          {"graph [\n [ ]\n]\n", 2, "expected a key, found '['"},
          {"graph [\n node 5\n]\n", 2, "'node' must be followed by '['"},
      },
      "t.gml", [](const std::string& text) { parse_gml(text, "t.gml"); });
}

// ---- Edge lists ------------------------------------------------------------------------------

TEST_CASE("Edge lists: 0-based, 1-based and named vertices, comments",
          "[common][sparse][edgelist]") {
  const std::string text = "# source target\n% another comment\n\n0 1\n1\t2\n  3 0\n";
  EdgeListOptions options;
  const EdgeList zero = parse_edge_list(text, options, "e.txt");
  CHECK(zero.num_vertices == 4);
  CHECK(pairs(zero) == Edges{{0, 1}, {1, 2}, {3, 0}});

  options.ids = VertexIds::one_based;
  const EdgeList one = parse_edge_list("1 2\n2 3\n", options, "e.txt");
  CHECK(one.num_vertices == 3);
  CHECK(pairs(one) == Edges{{0, 1}, {1, 2}});

  options.ids = VertexIds::names;  // WormNet's gene names, tab-separated
  const EdgeList named =
      parse_edge_list("C41D11.8\tAH9.2\nCD4.2\tAH9.2\nAH9.2 C41D11.8\n", options, "worm.txt");
  CHECK(named.num_vertices == 3);
  CHECK(pairs(named) == Edges{{0, 1}, {2, 1}, {1, 0}});

  options.ids = VertexIds::zero_based;
  options.min_vertices = 10;
  CHECK(parse_edge_list("0 1\n", options, "e").num_vertices == 10);
  CHECK(parse_edge_list("# empty\n", options, "e").num_vertices == 10);

  options.min_vertices = 0;
  options.allow_extra_columns = true;
  CHECK(pairs(parse_edge_list("0 1 0.5\n1 2 7 x\n", options, "e")) == Edges{{0, 1}, {1, 2}});

  std::istringstream in("5 6\n");
  CHECK(read_edge_list(in).num_vertices == 7);
}

TEST_CASE("Edge lists: malformed files give one line naming the line and the problem",
          "[common][sparse][edgelist]") {
  const auto parse_with = [](VertexIds ids) {
    return [ids](const std::string& text) {
      EdgeListOptions options;
      options.ids = ids;
      parse_edge_list(text, options, "e.txt");
    };
  };
  check_errors(
      {
          {"0 1\n2\n", 2, "expected two vertices 'u v', found 1 field"},
          {"0 1 0.5\n", 1, "found 3 fields (extra columns such as weights are not allowed)"},
          {"# c\n0 x\n", 2, "vertex 'x' is not an integer"},
          {"0 1\n-1 2\n", 2, "vertex -1 is below 0"},
          {"0 3000000000\n", 1, "vertex 3000000000 is too large for int32"},
      },
      "e.txt", parse_with(VertexIds::zero_based));
  check_errors({{"1 2\n0 1\n", 2, "vertex 0 is below 1 (ids are 1-based)"}}, "e.txt",
               parse_with(VertexIds::one_based));
}

// ---- Undirected CSR --------------------------------------------------------------------------

TEST_CASE("Undirected CSR: symmetrised, sorted; self-loops and duplicates removed by default",
          "[common][sparse][graph]") {
  EdgeList g;
  g.num_vertices = 5;
  g.add(0, 1);
  g.add(1, 0);  // the same undirected edge again
  g.add(2, 2);  // self-loop
  g.add(3, 1);
  g.add(0, 1);  // repeat
  g.add(2, 2);  // another self-loop
  // vertex 4 isolated

  const CsrGraph simple = to_undirected_csr(g);
  CHECK(simple.num_vertices == 5);
  CHECK(simple.row_ptr == std::vector<index_t>{0, 1, 3, 3, 4, 4});
  CHECK(simple.col_idx == std::vector<index_t>{1, 0, 3, 1});
  CHECK(count_self_loops(simple) == 0);
  CHECK(count_duplicate_arcs(simple) == 0);
  CHECK_NOTHROW(validate(simple));

  UndirectedOptions keep;
  keep.remove_self_loops = false;
  keep.remove_duplicates = false;
  const CsrGraph multi = to_undirected_csr(g, keep);
  CHECK(multi.row_ptr == std::vector<index_t>{0, 3, 7, 9, 10, 10});
  CHECK(multi.col_idx == std::vector<index_t>{1, 1, 1, 0, 0, 0, 3, 2, 2, 1});
  CHECK(count_self_loops(multi) == 2);
  CHECK(count_duplicate_arcs(multi) == 5);  // 0->1 x2, 1->0 x2, 2->2 x1
  CHECK_NOTHROW(validate(multi));

  UndirectedOptions loops_only;
  loops_only.remove_self_loops = false;
  const CsrGraph with_loops = to_undirected_csr(g, loops_only);
  CHECK(with_loops.col_idx == std::vector<index_t>{1, 0, 3, 2, 1});

  g.add(0, 5);
  CHECK_THROWS_AS(to_undirected_csr(g), std::invalid_argument);
}

TEST_CASE("Undirected CSR: validate catches asymmetric and unsorted graphs",
          "[common][sparse][graph]") {
  CsrGraph g;
  g.num_vertices = 3;
  g.row_ptr = {0, 1, 1, 1};
  g.col_idx = {2};  // 0 -> 2 without 2 -> 0
  CHECK_THROWS_AS(validate(g), std::invalid_argument);
  CHECK_NOTHROW(validate(g, false));
  g.row_ptr = {0, 2, 3, 4};
  g.col_idx = {2, 1, 0, 0};
  CHECK_THROWS_AS(validate(g, false), std::invalid_argument);
  g.col_idx = {1, 2, 0, 0};
  CHECK_NOTHROW(validate(g));
  g.row_ptr = {0, 2, 4, 5};  // 1 -> 0 twice but 0 -> 1 once
  g.col_idx = {1, 2, 0, 0, 0};
  CHECK_THROWS_AS(validate(g), std::invalid_argument);
}

TEST_CASE("BFS reference: depths on a small graph, -1 where unreachable",
          "[common][sparse][graph]") {
  EdgeList g;
  g.num_vertices = 7;
  // The lecture's example shape: 2 is the source; 1, 3, 6 at depth 1; 0, 4, 5 at depth 2.
  for (auto [u, v] : Edges{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {5, 6}, {6, 2}}) g.add(u, v);
  const CsrGraph csr = to_undirected_csr(g);
  CHECK(bfs_depths(csr, 2) == std::vector<index_t>{2, 1, 0, 1, 2, 2, 1});
  g.num_vertices = 8;  // vertex 7 isolated
  CHECK(bfs_depths(to_undirected_csr(g), 0) == std::vector<index_t>{0, 1, 2, 3, 4, 4, 3, -1});
  CHECK_THROWS_AS(bfs_depths(csr, 7), std::invalid_argument);
}

// ---- Files -----------------------------------------------------------------------------------

TEST_CASE("Graph files: the reader is chosen by extension; missing files are one clear line",
          "[common][sparse][graph]") {
  sparse_test::TempFile metis("g.graph"), gml("g.gml"), edges("g.edges");
  metis.write("2 1\n2\n1\n");
  gml.write("graph [ node [ id 0 ] node [ id 1 ] edge [ source 0 target 1 ] ]\n");
  edges.write("0 1\n");
  for (const std::string& path : {metis.path(), gml.path(), edges.path()}) {
    CAPTURE(path);
    const CsrGraph g = read_graph_file(path);
    CHECK(g.num_vertices == 2);
    CHECK(g.col_idx == std::vector<index_t>{1, 0});
  }
  // Forcing a format overrides the extension: this METIS text is not an edge list.
  const auto wrong =
      parse_error_of([&] { read_graph_edges(metis.path(), GraphFormat::edge_list); });
  CHECK(wrong.what == metis.path() + ":2: expected two vertices 'u v', found 1 field");

  const auto missing = parse_error_of([] { read_graph_file("/nonexistent/power.gml"); });
  CHECK(missing.what == "/nonexistent/power.gml: cannot open file (No such file or directory)");
}
