// Graph readers for lab 08's real inputs: METIS graph files (libmetis-doc), GML as igraph and
// Mark Newman write it (r-cran-igraph's power.gml.gz), and whitespace edge lists (networkx's
// WormNet). Each returns an EdgeList; to_undirected_csr (graph.h) makes the BFS graph, and
// read_graph_file does both, choosing the reader by file extension.
//
// Errors are ParseError "source:line: problem" (a UsageError: exit code 2 in a runner).
#pragma once

#include <istream>
#include <string>

#include "cudalab/sparse/graph.h"
#include "cudalab/sparse/io.h"

namespace cudalab::sparse {

// METIS graph format (METIS 5 manual, section 4.1.1): '%' comment lines anywhere; a header
// "n m [fmt [ncon]]"; then exactly n vertex lines (blank = no neighbours), line v holding
// [size] [ncon vertex weights] then the 1-based neighbours, each followed by its weight when the
// format has edge weights. fmt is up to three 0/1 digits "svw...": hundreds = vertex sizes,
// tens = vertex weights (ncon of them, default 1), ones = edge weights; all weights are skipped.
// Checked: the adjacency lists hold 2m entries in all; every neighbour lies in 1..n and is not
// the vertex itself (METIS forbids self-loops); the lists are symmetric (u lists v as often as v
// lists u). Each undirected edge appears once in the result (from its lower-numbered end).
EdgeList read_metis(std::istream& in, const std::string& source = "<stream>");
EdgeList parse_metis(const std::string& text, const std::string& source);

// GML, the subset graph libraries write: optional top-level keys (Creator "...", Version 1), then
// graph [ directed 0|1  node [ id N ... ]  edge [ source A target B ... ] ... ]. Other keys are
// skipped with their values: numbers, "quoted strings" (may span lines) and nested [ ... ] lists.
// '#' starts a comment line. Node ids are any integers, numbered 0.. in order of appearance.
// Errors: no graph block, unbalanced brackets, a node without an id or with a repeated id, an
// edge without source/target or naming an unknown id, a non-integer id/source/target/directed.
EdgeList read_gml(std::istream& in, const std::string& source = "<stream>");
EdgeList parse_gml(const std::string& text, const std::string& source);

enum class VertexIds {
  zero_based,  // integers 0..n-1
  one_based,   // integers 1..n
  names,       // any tokens (gene names in WormNet), numbered 0.. in order of first appearance
};

struct EdgeListOptions {
  VertexIds ids = VertexIds::zero_based;
  bool allow_extra_columns = false;  // ignore a weight or other columns after the two vertices
  index_t min_vertices = 0;          // num_vertices is at least this (isolated trailing vertices)
};

// Whitespace-separated edge list, one "u v" per line; '#' and '%' start comment lines; blank
// lines skipped. num_vertices = max(min_vertices, largest id + 1) for integer ids.
EdgeList read_edge_list(std::istream& in, const EdgeListOptions& options = {},
                        const std::string& source = "<stream>");
EdgeList parse_edge_list(const std::string& text, const EdgeListOptions& options,
                         const std::string& source);

enum class GraphFormat { automatic, metis, gml, edge_list };

// Reads a graph file (gzip-compressed too, when gzip_supported()). automatic picks by name with
// any ".gz" removed: ".graph" -> METIS, ".gml" -> GML, anything else -> edge list with
// `edge_options`. Missing files give ParseError "path: cannot open file (...)".
EdgeList read_graph_edges(const std::string& path, GraphFormat format = GraphFormat::automatic,
                          const EdgeListOptions& edge_options = {});

// read_graph_edges + to_undirected_csr.
CsrGraph read_graph_file(const std::string& path, GraphFormat format = GraphFormat::automatic,
                         const EdgeListOptions& edge_options = {},
                         const UndirectedOptions& undirected = {});

}  // namespace cudalab::sparse
