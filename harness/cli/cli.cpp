#include "harness/cli/cli.h"
namespace cb::cli {
int Main(int, char**) { return 3; }
}  // namespace cb::cli
