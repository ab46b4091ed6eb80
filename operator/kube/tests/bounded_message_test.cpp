// Messages written to status and Events are bounded, and cut between UTF-8
// characters: the API server gets valid text, whatever the user's log or
// report put into them.
#include "distbench/kube/bounded_message.h"

#include <gtest/gtest.h>

#include <string>

namespace distbench::kube {
namespace {

// Whether `text` is well-formed UTF-8 (no sequence cut short or stray
// continuation byte; enough for what is tested here).
bool validUtf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

std::string repeated(const std::string& piece, std::size_t times) {
  std::string text;
  for (std::size_t i = 0; i < times; ++i) text += piece;
  return text;
}

TEST(BoundedMessage, AShortMessageIsKeptAsItIs) {
  EXPECT_EQ(boundedMessage("created master, 1 parameter servers and 2 trainers"),
            "created master, 1 parameter servers and 2 trainers");
  const std::string exact(kMaxMessageBytes, 'x');
  EXPECT_EQ(boundedMessage(exact), exact);
}

TEST(BoundedMessage, ALongOneIsCutBetweenCharactersAndSaysSo) {
  // Two-, three- and four-byte characters, so that every cut point is
  // tried against a character boundary somewhere.
  for (const std::string& piece : {std::string("é"), std::string("€"), std::string("𝄞"),
                                   std::string("aé€𝄞")}) {
    for (std::size_t extra = 0; extra < 8; ++extra) {
      const std::string text = std::string(extra, 'x') + repeated(piece, 2000);
      const std::string cut = boundedMessage(text);
      EXPECT_LE(cut.size(), kMaxMessageBytes) << piece << " " << extra;
      EXPECT_GT(cut.size(), kMaxMessageBytes - 8) << "cut far more than needed";
      EXPECT_TRUE(validUtf8(cut)) << piece << " " << extra;
      const std::string marker = "... [cut, " + std::to_string(text.size()) + " bytes in all]";
      ASSERT_GE(cut.size(), marker.size());
      EXPECT_EQ(cut.substr(cut.size() - marker.size()), marker);
      EXPECT_EQ(text.compare(0, cut.size() - marker.size(), cut, 0, cut.size() - marker.size()), 0)
          << "the kept part is the message's beginning";
    }
  }
}

TEST(BoundedMessage, TruncationNeverSplitsACharacter) {
  const std::string text = "ab€";  // 'a' 'b' E2 82 AC
  EXPECT_EQ(truncateUtf8(text, 2), "ab");
  EXPECT_EQ(truncateUtf8(text, 3), "ab");
  EXPECT_EQ(truncateUtf8(text, 4), "ab");
  EXPECT_EQ(truncateUtf8(text, 5), text);
  EXPECT_EQ(boundedMessage(std::string(100, 'y'), 10), std::string(10, 'y'))
      << "a bound too small for the marker still holds";
}

}  // namespace
}  // namespace distbench::kube
