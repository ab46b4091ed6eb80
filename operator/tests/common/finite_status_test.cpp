// A status with a number JSON cannot spell is written with null there
// instead of being refused by the API server on every retry.
#include "distbench/operator/common/finite_status.h"

#include <gtest/gtest.h>

#include <limits>

namespace distbench::op {
namespace {

using web::json::value;

TEST(FiniteStatus, NonFiniteNumbersBecomeNullNamingTheirPaths) {
  value status = value::parse(R"({"phase":"Succeeded","results":{"p50":1e999,"rows":[{"p95":1},
    {"p95":-1e999}]},"restartCount":0})");
  status["results"]["rows"][0]["mean"] = value::number(std::numeric_limits<double>::quiet_NaN());
  const std::vector<std::string> replaced = nullNonFiniteNumbers(status);
  EXPECT_EQ(replaced, (std::vector<std::string>{"results.p50", "results.rows[0].mean",
                                                "results.rows[1].p95"}));
  EXPECT_TRUE(status.at("results").at("p50").is_null());
  EXPECT_EQ(status.at("results").at("rows").at(0).at("p95").as_integer(), 1);
  // What the API server gets is JSON again.
  EXPECT_NO_THROW(value::parse(status.serialize())) << status.serialize();
  value fine = value::parse(R"({"a":[1,2.5,{"b":-3}]})");
  EXPECT_TRUE(nullNonFiniteNumbers(fine).empty());
}

// What both reconcilers do before a status write: the Warning names the
// fields; a status with none to drop sends nothing.
TEST(FiniteStatus, DroppedNumbersAreAWarningNamingThem) {
  value status = value::parse(R"({"rows":[{"p50Seconds":1e999,"p95Seconds":2}]})");
  const std::optional<kube::StatusEvent> event = dropNonFiniteStatusNumbers(status);
  ASSERT_TRUE(event.has_value());
  EXPECT_TRUE(event->warning);
  EXPECT_EQ(event->reason, "StatusNumbersDropped");
  EXPECT_EQ(event->message,
            "status fields that held no finite number, written as null: rows[0].p50Seconds");
  EXPECT_TRUE(status.at("rows").at(0).at("p50Seconds").is_null());
  EXPECT_FALSE(dropNonFiniteStatusNumbers(status).has_value());
}

}  // namespace
}  // namespace distbench::op
