#include "distbench/cli/report_page/html_text.h"

#include <gtest/gtest.h>

#include "distbench/cli/report_page/vega_lite.h"

namespace distbench::cli {
namespace {

TEST(HtmlEscape, EscapesEveryCharacterThatEndsTextOrAnAttribute) {
  EXPECT_EQ(htmlEscape("a < b && c > \"d\" 'e'"),
            "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;");
  EXPECT_EQ(htmlEscape("plain text, ünïcode"), "plain text, ünïcode");
  EXPECT_EQ(htmlEscape(""), "");
}

TEST(JsonForScriptElement, LeavesNoMarkupAndParsesBackUnchanged) {
  const std::string evil = "</script><script>alert(1)</script><!-- & \xE2\x80\xA8 \xE2\x80\xA9 >";
  const vl::Json original = vl::obj({{"name", vl::str(evil)}, {"n", vl::num(1.5)}});
  const std::string escaped = jsonForScriptElement(original.serialize());
  for (const char* markup : {"<", ">", "&", "\xE2\x80\xA8", "\xE2\x80\xA9"}) {
    EXPECT_EQ(escaped.find(markup), std::string::npos) << markup;
  }
  EXPECT_NE(escaped.find("\\u003c/script\\u003e"), std::string::npos) << escaped;
  EXPECT_EQ(vl::Json::parse(escaped).at("n").as_double(), 1.5);
  EXPECT_EQ(vl::Json::parse(escaped).at("name").as_string(), evil);
}

TEST(JsonForScriptElement, LeavesOtherUtf8Alone) {
  // E2 80 A7 and E2 82 AC (the euro sign) share the lead bytes of U+2028.
  EXPECT_EQ(jsonForScriptElement("\"\xE2\x80\xA7 \xE2\x82\xAC\""), "\"\xE2\x80\xA7 \xE2\x82\xAC\"");
}

}  // namespace
}  // namespace distbench::cli
