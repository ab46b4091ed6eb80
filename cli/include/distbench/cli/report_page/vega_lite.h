// Writing Vega-Lite specs (the report page's charts) as cpprest JSON values
// in a form that reads like the JSON they become. Objects keep the order
// they are written in, so a spec in the page reads as it does here.
#pragma once

#include <cpprest/json.h>

#include <string>
#include <utility>
#include <vector>

namespace distbench::cli::vl {

using Json = web::json::value;

Json obj(std::vector<std::pair<std::string, Json>> fields);
Json arr(std::vector<Json> items);
Json str(const std::string& text);
// null for NaN and infinities, which JSON cannot hold.
Json num(double value);
Json strings(const std::vector<std::string>& texts);

// An encoding channel on a field: {"field": f, "type": t, "title": title},
// then `more`.
Json field(const std::string& name, const std::string& type, const std::string& title,
           std::vector<std::pair<std::string, Json>> more = {});

// A tooltip entry: nominal text, or with a d3-format `format` a number.
Json tooltip(const std::string& name, const std::string& title, const std::string& format = "");

}  // namespace distbench::cli::vl
