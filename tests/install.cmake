# ctest -R install_package: `cmake --install` to a temporary prefix, then build
# the library example (the first C++ block of docs/design.md) as an external
# project with find_package(modelcalc) and run it. Arguments: -DBUILD_DIR, -DSOURCE_DIR, -DWORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
file(GLOB_RECURSE config ${WORK_DIR}/prefix/*/modelcalcConfig.cmake)
if(NOT EXISTS ${WORK_DIR}/prefix/include/modelcalc/modelcalc.h OR NOT config)
  message(FATAL_ERROR "cmake --install did not install the headers and the package config")
endif()
run(${CMAKE_COMMAND} -DDESIGN=${SOURCE_DIR}/docs/design.md -DOUT=${WORK_DIR}/design_example.cc
    -P ${SOURCE_DIR}/cmake/design_example.cmake)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install_consumer -B ${WORK_DIR}/consumer -G Ninja
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
    -DEXAMPLE_SOURCE=${WORK_DIR}/design_example.cc)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/size_example)
# 32 x 3.35e12 / (16,060,522,496 + 32 x 1,073,741,824) = 2126.4 (docs/design.md, "Library use"); the
# engine's line follows it.
if(NOT last_output MATCHES "^2126 tokens/s\nengine: [0-9]+ tokens/s ceiling\n  [0-9]+ predicted\n$")
  message(FATAL_ERROR "unexpected output from the installed example: ${last_output}")
endif()
message(STATUS "installed package builds and runs the docs/design.md example: ${last_output}")

# The Python package, when it was built: `cmake --install` put it under the
# prefix, where the interpreter imports it (no build tree on its path).
if(PYTHON)
  set(site ${WORK_DIR}/prefix/${PYTHON_DIR})
  file(WRITE ${WORK_DIR}/import_check.py
       "import modelcalc\n"
       "assert modelcalc.__file__.startswith('${site}/'), modelcalc.__file__\n"
       "print(modelcalc.lab.kv_cache_bytes(32, 4096, 4096, n_heads=32, n_kv_heads=8))\n")
  run(${CMAKE_COMMAND} -E env PYTHONPATH=${site} ${PYTHON} ${WORK_DIR}/import_check.py)
  # 2 x 32 layers x 4096 tokens x (4096 x 8 / 32) x 2 B = 536,870,912 (the lab's GQA case).
  if(NOT last_output MATCHES "^536870912")
    message(FATAL_ERROR "the installed Python package gave: ${last_output}")
  endif()
  message(STATUS "installed Python package imports from ${PYTHON_DIR}: ${last_output}")
endif()
