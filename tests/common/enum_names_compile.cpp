// Compiled (not run) by the ctest cases common:enum-names-*: the table below compiles as written, and fails to
// compile when the enum gains an enumerator without a row (LYNX_UNNAMED_ENUMERATOR) or when two rows are swapped
// (LYNX_ROWS_OUT_OF_ORDER). See common/enum_names.hpp.
#include "common/enum_names.hpp"

namespace {
#if defined(LYNX_UNNAMED_ENUMERATOR)
enum class Fruit { apple, pear, plum };
#else
enum class Fruit { apple, pear };
#endif
#if defined(LYNX_ROWS_OUT_OF_ORDER)
constexpr auto kFruitNames = lynx::enum_names<Fruit>({{Fruit::pear, "pear"}, {Fruit::apple, "apple"}});
#else
constexpr auto kFruitNames = lynx::enum_names<Fruit>({{Fruit::apple, "apple"}, {Fruit::pear, "pear"}});
#endif
}  // namespace

int main() { return kFruitNames.size() == 2 ? 0 : 1; }
