// Must compile: the control for the *_up.cc probes. A report file sees its
// own headers and core's (public and src/core).
#include "modelcalc/size.h"
#include "quantity.h"
#include "report.h"
