# The first ```cpp block of docs/design.md, written to OUT: the library
# example the build compiles (modelcalc_example) and the install test builds
# against the installed package, so the documented program is the tested one.
# Arguments: -DDESIGN=docs/design.md -DOUT=<file>.
file(READ ${DESIGN} text)
string(FIND "${text}" "```cpp\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${DESIGN} has no ```cpp block")
endif()
math(EXPR start "${start} + 7")
string(SUBSTRING "${text}" ${start} -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} code)
set(code "// Generated from the first C++ block of docs/design.md (cmake/design_example.cmake).\n${code}")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${code}")
  file(WRITE ${OUT} "${code}")
endif()
