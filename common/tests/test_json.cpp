// The JSON writer: string escaping, exact pretty-printed layout, non-finite numbers, misuse.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "cudalab/catch.h"
#include "cudalab/json.h"

TEST_CASE("json_escape escapes quotes and backslashes and control characters", "[common][json]") {
  CHECK(cudalab::json_escape("plain text") == "plain text");
  CHECK(cudalab::json_escape("say \"hi\"") == "say \\\"hi\\\"");
  CHECK(cudalab::json_escape("C:\\path") == "C:\\\\path");
  CHECK(cudalab::json_escape("a\nb") == "a\\nb");
  CHECK(cudalab::json_escape("a\tb") == "a\\tb");
  CHECK(cudalab::json_escape("a\rb") == "a\\rb");
  CHECK(cudalab::json_escape("\x01") == "\\u0001");
  CHECK(cudalab::json_escape("\x1f") == "\\u001f");
  CHECK(cudalab::json_escape(std::string("a\0b", 3)) == "a\\u0000b");
  CHECK(cudalab::json_escape("") == "");
}

TEST_CASE("json_escape passes UTF-8 and printable ASCII through", "[common][json]") {
  CHECK(cudalab::json_escape("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");
  CHECK(cudalab::json_escape("/~\x7f") == "/~\x7f");
}

TEST_CASE("JsonWriter pretty-prints nested objects and arrays with two spaces", "[common][json]") {
  cudalab::JsonWriter w;
  w.begin_object()
      .field("lab", "conv1d")
      .field("passed", true)
      .key("sizes")
      .begin_array()
      .value(1)
      .value(std::int64_t{-2})
      .end_array()
      .key("device")
      .begin_object()
      .field("name", "H100 \"SXM\"")
      .field("sm_count", std::size_t{132})
      .field("ratio", 0.5)
      .field("failed", false)
      .key("note")
      .null()
      .end_object()
      .key("matrix")
      .begin_array()
      .begin_array()
      .value(1)
      .end_array()
      .begin_object()
      .end_object()
      .end_array()
      .end_object();

  CHECK(w.str() ==
        "{\n"
        "  \"lab\": \"conv1d\",\n"
        "  \"passed\": true,\n"
        "  \"sizes\": [\n"
        "    1,\n"
        "    -2\n"
        "  ],\n"
        "  \"device\": {\n"
        "    \"name\": \"H100 \\\"SXM\\\"\",\n"
        "    \"sm_count\": 132,\n"
        "    \"ratio\": 0.5,\n"
        "    \"failed\": false,\n"
        "    \"note\": null\n"
        "  },\n"
        "  \"matrix\": [\n"
        "    [\n"
        "      1\n"
        "    ],\n"
        "    {}\n"
        "  ]\n"
        "}\n");
}

TEST_CASE("JsonWriter writes empty containers compactly", "[common][json]") {
  SECTION("empty object") {
    cudalab::JsonWriter w;
    w.begin_object().end_object();
    CHECK(w.str() == "{}\n");
  }
  SECTION("empty array") {
    cudalab::JsonWriter w;
    w.begin_array().end_array();
    CHECK(w.str() == "[]\n");
  }
  SECTION("empty containers as values") {
    cudalab::JsonWriter w;
    w.begin_object().key("a").begin_array().end_array().key("o").begin_object().end_object();
    w.end_object();
    CHECK(w.str() == "{\n  \"a\": [],\n  \"o\": {}\n}\n");
  }
}

TEST_CASE("JsonWriter writes NaN and infinities as null", "[common][json]") {
  cudalab::JsonWriter w;
  w.begin_array()
      .value(std::numeric_limits<double>::quiet_NaN())
      .value(std::numeric_limits<double>::infinity())
      .value(-std::numeric_limits<double>::infinity())
      .value(1.25)
      .end_array();
  CHECK(w.str() == "[\n  null,\n  null,\n  null,\n  1.25\n]\n");
}

TEST_CASE("JsonWriter numbers: integers exact and doubles as valid JSON", "[common][json]") {
  cudalab::JsonWriter w;
  w.begin_array()
      .value(std::numeric_limits<std::int64_t>::max())
      .value(std::numeric_limits<std::int64_t>::min())
      .value(0)
      .value(1e20)
      .value(-0.001)
      .end_array();
  CHECK(w.str() ==
        "[\n  9223372036854775807,\n  -9223372036854775808,\n  0,\n  1e+20,\n  -0.001\n]\n");
}

TEST_CASE("JsonWriter escapes keys and string values", "[common][json]") {
  cudalab::JsonWriter w;
  w.begin_object().field("line\nbreak", "tab\there").end_object();
  CHECK(w.str() == "{\n  \"line\\nbreak\": \"tab\\there\"\n}\n");
}

TEST_CASE("JsonWriter rejects unbalanced containers with std::logic_error", "[common][json]") {
  SECTION("str() with an unclosed object") {
    cudalab::JsonWriter w;
    w.begin_object().field("a", 1);
    REQUIRE_THROWS_AS(w.str(), std::logic_error);
  }
  SECTION("str() with an unclosed array inside a closed-looking object") {
    cudalab::JsonWriter w;
    w.begin_object().key("a").begin_array();
    REQUIRE_THROWS_AS(w.str(), std::logic_error);
  }
  SECTION("end_object without begin") {
    cudalab::JsonWriter w;
    REQUIRE_THROWS_AS(w.end_object(), std::logic_error);
  }
  SECTION("end_array without begin") {
    cudalab::JsonWriter w;
    REQUIRE_THROWS_AS(w.end_array(), std::logic_error);
  }
  SECTION("one end too many") {
    cudalab::JsonWriter w;
    w.begin_array().end_array();
    REQUIRE_THROWS_AS(w.end_array(), std::logic_error);
  }
}

TEST_CASE("JsonWriter rejects structures that would not be valid JSON", "[common][json]") {
  SECTION("a value without a key inside an object") {
    cudalab::JsonWriter w;
    w.begin_object();
    REQUIRE_THROWS_AS(w.value(1), std::logic_error);
  }
  SECTION("a key inside an array") {
    cudalab::JsonWriter w;
    w.begin_array();
    REQUIRE_THROWS_AS(w.key("k"), std::logic_error);
  }
  SECTION("an object closed as an array") {
    cudalab::JsonWriter w;
    w.begin_object();
    REQUIRE_THROWS_AS(w.end_array(), std::logic_error);
  }
  SECTION("a key left without a value") {
    cudalab::JsonWriter w;
    w.begin_object().key("k");
    REQUIRE_THROWS_AS(w.end_object(), std::logic_error);
  }
  SECTION("two top-level values") {
    cudalab::JsonWriter w;
    w.value(1);
    REQUIRE_THROWS_AS(w.value(2), std::logic_error);
  }
}
