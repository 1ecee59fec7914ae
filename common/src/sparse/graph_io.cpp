#include "cudalab/sparse/graph_io.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "text.h"

namespace cudalab::sparse {

namespace {

using detail::LineReader;
using detail::quote;

constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();

bool starts_with_any(std::string_view line, std::string_view chars) {
  const std::string_view t = detail::trim_left(line);
  return !t.empty() && chars.find(t.front()) != std::string_view::npos;
}

// ---------------------------------------------------------------------------------------------
// METIS

struct MetisFormat {
  bool sizes = false;
  bool vertex_weights = false;
  bool edge_weights = false;
  std::int64_t ncon = 0;
};

MetisFormat parse_metis_format(const std::vector<std::string_view>& header,
                               const std::string& source, std::size_t line) {
  MetisFormat f;
  if (header.size() < 3) return f;
  const std::string_view fmt = header[2];
  const bool digits =
      !fmt.empty() && fmt.size() <= 3 &&
      std::all_of(fmt.begin(), fmt.end(), [](char c) { return c == '0' || c == '1'; });
  if (!digits)
    throw ParseError(source, line,
                     "bad header: fmt " + quote(fmt) +
                         " must be up to three 0/1 digits (sizes, vertex weights, edge weights)");
  const std::string padded = std::string(3 - fmt.size(), '0') + std::string(fmt);
  f.sizes = padded[0] == '1';
  f.vertex_weights = padded[1] == '1';
  f.edge_weights = padded[2] == '1';
  if (f.vertex_weights) f.ncon = 1;
  if (header.size() == 4) {
    if (!detail::parse_int64(header[3], f.ncon) || f.ncon < 1 || f.ncon > 1000)
      throw ParseError(source, line,
                       "bad header: ncon " + quote(header[3]) + " must be a positive integer");
    if (!f.vertex_weights)
      throw ParseError(
          source, line,
          "bad header: ncon is given but fmt " + quote(fmt) + " has no vertex weights");
  }
  return f;
}

}  // namespace

EdgeList parse_metis(const std::string& text, const std::string& source) {
  LineReader lines(text);
  std::string_view line;
  bool have_header = false;
  while (lines.next(line)) {
    if (starts_with_any(line, "%") || detail::is_blank(line)) continue;
    have_header = true;
    break;
  }
  if (!have_header)
    throw ParseError(source, std::max<std::size_t>(lines.line_number(), 1),
                     "missing header line 'vertices edges [fmt [ncon]]'");
  const std::size_t header_line = lines.line_number();
  const auto header = detail::split_fields(line);
  if (header.size() < 2 || header.size() > 4)
    throw ParseError(source, header_line,
                     "bad header: expected 'vertices edges [fmt [ncon]]', found " +
                         std::to_string(header.size()) + " fields");
  std::int64_t n = 0, m = 0;
  if (!detail::parse_int64(header[0], n) || n < 0 || n > kMaxIndex)
    throw ParseError(
        source, header_line,
        "bad header: vertex count " + quote(header[0]) + " is not an integer in 0..2147483647");
  if (!detail::parse_int64(header[1], m) || m < 0 || m > kMaxIndex / 2)
    throw ParseError(
        source, header_line,
        "bad header: edge count " + quote(header[1]) + " is not an integer in 0..1073741823");
  const MetisFormat fmt = parse_metis_format(header, source, header_line);
  const std::size_t leading =
      (fmt.sizes ? 1u : 0u) + (fmt.vertex_weights ? static_cast<std::size_t>(fmt.ncon) : 0u);
  const std::size_t stride = fmt.edge_weights ? 2 : 1;

  EdgeList edges;
  edges.num_vertices = static_cast<index_t>(n);
  std::vector<std::size_t> vertex_line(static_cast<std::size_t>(n), 0);
  // Arcs u->v as (min, max, from-the-lower-end?) to check that every edge is listed from both
  // ends: the lower end's listing and the higher end's listing must be the same multiset.
  std::vector<std::pair<index_t, index_t>> from_lower, from_upper;
  from_lower.reserve(static_cast<std::size_t>(m));
  from_upper.reserve(static_cast<std::size_t>(m));
  std::int64_t entries = 0;
  std::int64_t v = 0;
  while (v < n && lines.next(line)) {
    if (starts_with_any(line, "%")) continue;  // a blank line is a vertex without neighbours
    const std::size_t ln = lines.line_number();
    vertex_line[v] = ln;
    const auto f = detail::split_fields(line);
    const std::string vname = "vertex " + std::to_string(v + 1);
    if (!f.empty() && f.size() < leading)
      throw ParseError(source, ln,
                       vname + ": expected " + std::to_string(leading) +
                           " size/weight fields before the neighbours, found " +
                           std::to_string(f.size()));
    if (f.empty() && leading > 0)
      throw ParseError(source, ln,
                       vname + ": empty line, but fmt asks for " + std::to_string(leading) +
                           " size/weight fields");
    for (std::size_t k = 0; k < leading; ++k) {
      std::int64_t w = 0;
      if (!detail::parse_int64(f[k], w))
        throw ParseError(source, ln, vname + ": weight " + quote(f[k]) + " is not an integer");
    }
    if ((f.size() - leading) % stride != 0)
      throw ParseError(source, ln,
                       vname + ": neighbour without its edge weight (fmt " +
                           std::string(header[2]) + " pairs each neighbour with one)");
    for (std::size_t k = leading; k < f.size(); k += stride) {
      std::int64_t u = 0;
      if (!detail::parse_int64(f[k], u))
        throw ParseError(source, ln, vname + ": neighbour " + quote(f[k]) + " is not an integer");
      if (u < 1 || u > n)
        throw ParseError(source, ln,
                         vname + ": neighbour " + std::to_string(u) + " is out of range 1.." +
                             std::to_string(n));
      if (u == v + 1)
        throw ParseError(source, ln, vname + " lists itself (METIS graphs have no self-loops)");
      if (stride == 2) {
        std::int64_t w = 0;
        if (!detail::parse_int64(f[k + 1], w))
          throw ParseError(source, ln,
                           vname + ": edge weight " + quote(f[k + 1]) + " is not an integer");
      }
      const index_t a = static_cast<index_t>(v), b = static_cast<index_t>(u - 1);
      if (a < b)
        from_lower.emplace_back(a, b);
      else
        from_upper.emplace_back(b, a);
      ++entries;
    }
    ++v;
  }
  if (v < n)
    throw ParseError(source, std::max<std::size_t>(lines.line_number(), 1),
                     "file ends after " + std::to_string(v) + " of the " + std::to_string(n) +
                         " vertex lines declared on line " + std::to_string(header_line));
  while (lines.next(line)) {
    if (starts_with_any(line, "%") || detail::is_blank(line)) continue;
    throw ParseError(source, lines.line_number(),
                     "more vertex lines than the " + std::to_string(n) + " declared on line " +
                         std::to_string(header_line));
  }
  if (entries != 2 * m)
    throw ParseError(source, header_line,
                     "header declares " + std::to_string(m) +
                         " edges, so the adjacency lists "
                         "should hold " +
                         std::to_string(2 * m) + " entries; they hold " + std::to_string(entries));
  // Keep the file order of the lower-end listings for the result, compare sorted copies.
  std::vector<std::pair<index_t, index_t>> lower_sorted = from_lower;
  std::sort(lower_sorted.begin(), lower_sorted.end());
  std::sort(from_upper.begin(), from_upper.end());
  if (lower_sorted != from_upper) {
    const auto [it_a, it_b] = std::mismatch(lower_sorted.begin(), lower_sorted.end(),
                                            from_upper.begin(), from_upper.end());
    // The smaller of the two differing pairs is the listing without a partner.
    const bool missing_in_upper =
        it_b == from_upper.end() || (it_a != lower_sorted.end() && *it_a < *it_b);
    const auto [a, b] = missing_in_upper ? *it_a : *it_b;
    const index_t lister = missing_in_upper ? a : b, other = missing_in_upper ? b : a;
    throw ParseError(source, vertex_line[lister],
                     "vertex " + std::to_string(lister + 1) + " lists " +
                         std::to_string(other + 1) + " but vertex " + std::to_string(other + 1) +
                         " does not list " + std::to_string(lister + 1) +
                         " as often (METIS adjacency lists must be symmetric)");
  }
  edges.src.reserve(from_lower.size());
  edges.dst.reserve(from_lower.size());
  for (const auto& [a, b] : from_lower) edges.add(a, b);
  return edges;
}

EdgeList read_metis(std::istream& in, const std::string& source) {
  return parse_metis(read_stream_text(in), source);
}

// ---------------------------------------------------------------------------------------------
// GML

namespace {

struct GmlToken {
  enum Kind { open, close, string, word, end } kind = end;
  std::string_view text;
  std::size_t line = 0;
};

class GmlLexer {
 public:
  GmlLexer(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  GmlToken next() {
    skip_space_and_comments();
    GmlToken t;
    t.line = line_;
    if (pos_ >= text_.size()) return t;
    const char c = text_[pos_];
    if (c == '[' || c == ']') {
      t.kind = c == '[' ? GmlToken::open : GmlToken::close;
      t.text = text_.substr(pos_++, 1);
      return t;
    }
    if (c == '"') {
      const std::size_t start = ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        if (text_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (pos_ >= text_.size())
        throw ParseError(source_, t.line, "string opened here is never closed");
      t.kind = GmlToken::string;
      t.text = text_.substr(start, pos_ - start);
      ++pos_;
      return t;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !detail::is_space(text_[pos_]) && text_[pos_] != '\n' &&
           text_[pos_] != '[' && text_[pos_] != ']' && text_[pos_] != '"')
      ++pos_;
    t.kind = GmlToken::word;
    t.text = text_.substr(start, pos_ - start);
    return t;
  }

 private:
  void skip_space_and_comments() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
        at_line_start_ = true;
      } else if (detail::is_space(c)) {
        ++pos_;
      } else if (c == '#' && at_line_start_) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        at_line_start_ = false;
        return;
      }
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  bool at_line_start_ = true;
};

class GmlParser {
 public:
  GmlParser(std::string_view text, const std::string& source)
      : lex_(text, source), source_(source) {}

  EdgeList parse() {
    bool have_graph = false;
    EdgeList result;
    for (GmlToken key = lex_.next(); key.kind != GmlToken::end; key = lex_.next()) {
      expect_key(key);
      if (key.text == "graph") {
        const GmlToken open = lex_.next();
        if (open.kind != GmlToken::open)
          throw ParseError(source_, open.line, "'graph' must be followed by '['");
        if (have_graph) throw ParseError(source_, key.line, "more than one graph block");
        result = parse_graph(open.line);
        have_graph = true;
      } else {
        skip_value(key);
      }
    }
    if (!have_graph) throw ParseError(source_, 1, "no 'graph [ ... ]' block");
    return result;
  }

 private:
  struct PendingEdge {
    std::int64_t source = 0, target = 0;
    std::size_t line = 0;
  };

  [[noreturn]] void fail(std::size_t line, const std::string& problem) {
    throw ParseError(source_, line, problem);
  }

  void expect_key(const GmlToken& t) {
    if (t.kind == GmlToken::close) fail(t.line, "unexpected ']' (no list is open)");
    if (t.kind != GmlToken::word) fail(t.line, "expected a key, found " + describe(t));
  }

  static std::string describe(const GmlToken& t) {
    switch (t.kind) {
      case GmlToken::open: return "'['";
      case GmlToken::close: return "']'";
      case GmlToken::string: return "a string";
      case GmlToken::word: return quote(t.text);
      case GmlToken::end: return "the end of the file";
    }
    return "?";
  }

  // Skips the value after `key`: one token or a balanced list.
  void skip_value(const GmlToken& key) {
    const GmlToken v = lex_.next();
    if (v.kind == GmlToken::end || v.kind == GmlToken::close)
      fail(v.line, "key " + quote(key.text) + " has no value");
    if (v.kind == GmlToken::open) skip_list(v.line);
  }

  // Skips to the ']' closing a list opened on `open_line`.
  void skip_list(std::size_t open_line) {
    for (GmlToken key = lex_.next();; key = lex_.next()) {
      if (key.kind == GmlToken::close) return;
      if (key.kind == GmlToken::end) fail(open_line, "'[' opened here is never closed");
      expect_key(key);
      skip_value(key);
    }
  }

  std::int64_t integer_value(const GmlToken& key) {
    const GmlToken v = lex_.next();
    std::int64_t x = 0;
    if (v.kind != GmlToken::word || !detail::parse_int64(v.text, x))
      fail(v.line, "value of " + quote(key.text) + " must be an integer, found " + describe(v));
    return x;
  }

  EdgeList parse_graph(std::size_t open_line) {
    EdgeList edges;
    std::unordered_map<std::int64_t, index_t> index_of;
    std::vector<PendingEdge> pending;
    for (GmlToken key = lex_.next();; key = lex_.next()) {
      if (key.kind == GmlToken::close) break;
      if (key.kind == GmlToken::end) fail(open_line, "'graph [' opened here is never closed");
      expect_key(key);
      if (key.text == "directed") {
        const std::int64_t d = integer_value(key);
        if (d != 0 && d != 1) fail(key.line, "directed must be 0 or 1, found " + std::to_string(d));
        edges.directed = d == 1;
      } else if (key.text == "node" || key.text == "edge") {
        const GmlToken open = lex_.next();
        if (open.kind != GmlToken::open)
          fail(open.line, quote(key.text) + " must be followed by '[', found " + describe(open));
        if (key.text == "node")
          parse_node(open.line, index_of);
        else
          pending.push_back(parse_edge(open.line));
      } else {
        skip_value(key);
      }
    }
    edges.num_vertices = static_cast<index_t>(index_of.size());
    edges.src.reserve(pending.size());
    edges.dst.reserve(pending.size());
    for (const PendingEdge& e : pending) {
      const auto s = index_of.find(e.source), t = index_of.find(e.target);
      if (s == index_of.end())
        fail(e.line, "edge source " + std::to_string(e.source) + " is not the id of any node");
      if (t == index_of.end())
        fail(e.line, "edge target " + std::to_string(e.target) + " is not the id of any node");
      edges.add(s->second, t->second);
    }
    return edges;
  }

  void parse_node(std::size_t open_line, std::unordered_map<std::int64_t, index_t>& index_of) {
    bool have_id = false;
    std::int64_t id = 0;
    for (GmlToken key = lex_.next();; key = lex_.next()) {
      if (key.kind == GmlToken::close) break;
      if (key.kind == GmlToken::end) fail(open_line, "'node [' opened here is never closed");
      expect_key(key);
      if (key.text == "id") {
        if (have_id) fail(key.line, "node has two ids");
        id = integer_value(key);
        have_id = true;
      } else {
        skip_value(key);
      }
    }
    if (!have_id) fail(open_line, "node without an id");
    if (index_of.size() >= static_cast<std::size_t>(kMaxIndex))
      fail(open_line, "more than 2^31 - 1 nodes");
    const index_t next = static_cast<index_t>(index_of.size());
    if (!index_of.emplace(id, next).second)
      fail(open_line, "node id " + std::to_string(id) + " is used twice");
  }

  PendingEdge parse_edge(std::size_t open_line) {
    PendingEdge e;
    e.line = open_line;
    bool have_source = false, have_target = false;
    for (GmlToken key = lex_.next();; key = lex_.next()) {
      if (key.kind == GmlToken::close) break;
      if (key.kind == GmlToken::end) fail(open_line, "'edge [' opened here is never closed");
      expect_key(key);
      if (key.text == "source") {
        e.source = integer_value(key);
        have_source = true;
      } else if (key.text == "target") {
        e.target = integer_value(key);
        have_target = true;
      } else {
        skip_value(key);
      }
    }
    if (!have_source || !have_target)
      fail(open_line, std::string("edge without a ") + (have_source ? "target" : "source"));
    return e;
  }

  GmlLexer lex_;
  const std::string& source_;
};

}  // namespace

EdgeList parse_gml(const std::string& text, const std::string& source) {
  return GmlParser(text, source).parse();
}

EdgeList read_gml(std::istream& in, const std::string& source) {
  return parse_gml(read_stream_text(in), source);
}

// ---------------------------------------------------------------------------------------------
// Edge lists

EdgeList parse_edge_list(const std::string& text, const EdgeListOptions& options,
                         const std::string& source) {
  if (options.min_vertices < 0) throw ParseError(source, 0, "min_vertices must not be negative");
  EdgeList edges;
  std::unordered_map<std::string_view, index_t> names;
  const std::int64_t base = options.ids == VertexIds::one_based ? 1 : 0;
  std::int64_t largest = -1;
  LineReader lines(text);
  std::string_view line;
  auto vertex = [&](std::string_view field, std::size_t ln) -> index_t {
    if (options.ids == VertexIds::names) {
      if (names.size() >= static_cast<std::size_t>(kMaxIndex))
        throw ParseError(source, ln, "more than 2^31 - 1 vertices");
      const auto [it, added] = names.emplace(field, static_cast<index_t>(names.size()));
      (void)added;
      return it->second;
    }
    std::int64_t id = 0;
    if (!detail::parse_int64(field, id))
      throw ParseError(
          source, ln,
          "vertex " + quote(field) + " is not an integer" + " (use names for non-numeric ids)");
    if (id < base)
      throw ParseError(source, ln,
                       "vertex " + std::to_string(id) + " is below " + std::to_string(base) +
                           " (ids are " + (base == 1 ? "1" : "0") + "-based)");
    if (id - base >= kMaxIndex)
      throw ParseError(source, ln, "vertex " + std::to_string(id) + " is too large for int32");
    largest = std::max(largest, id - base);
    return static_cast<index_t>(id - base);
  };
  while (lines.next(line)) {
    if (detail::is_blank(line) || starts_with_any(line, "#%")) continue;
    const std::size_t ln = lines.line_number();
    const auto f = detail::split_fields(line);
    if (f.size() < 2) throw ParseError(source, ln, "expected two vertices 'u v', found 1 field");
    if (f.size() > 2 && !options.allow_extra_columns)
      throw ParseError(source, ln,
                       "expected two vertices 'u v', found " + std::to_string(f.size()) +
                           " fields (extra columns such as weights are not allowed)");
    const index_t u = vertex(f[0], ln);
    const index_t v = vertex(f[1], ln);
    edges.add(u, v);
  }
  const std::int64_t counted =
      options.ids == VertexIds::names ? static_cast<std::int64_t>(names.size()) : largest + 1;
  edges.num_vertices = static_cast<index_t>(std::max<std::int64_t>(counted, options.min_vertices));
  return edges;
}

EdgeList read_edge_list(std::istream& in, const EdgeListOptions& options,
                        const std::string& source) {
  return parse_edge_list(read_stream_text(in), options, source);
}

// ---------------------------------------------------------------------------------------------
// Files

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

EdgeList read_graph_edges(const std::string& path, GraphFormat format,
                          const EdgeListOptions& edge_options) {
  if (format == GraphFormat::automatic) {
    std::string name = path;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ends_with(name, ".gz")) name.resize(name.size() - 3);
    format = ends_with(name, ".graph") ? GraphFormat::metis
             : ends_with(name, ".gml") ? GraphFormat::gml
                                       : GraphFormat::edge_list;
  }
  const std::string text = read_file_text(path);
  switch (format) {
    case GraphFormat::metis: return parse_metis(text, path);
    case GraphFormat::gml: return parse_gml(text, path);
    default: return parse_edge_list(text, edge_options, path);
  }
}

CsrGraph read_graph_file(const std::string& path, GraphFormat format,
                         const EdgeListOptions& edge_options, const UndirectedOptions& undirected) {
  return to_undirected_csr(read_graph_edges(path, format, edge_options), undirected);
}

}  // namespace cudalab::sparse
