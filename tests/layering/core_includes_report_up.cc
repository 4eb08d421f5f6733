// Must not compile: core cannot see the presentation layer.
#include "report.h"
