# Test scripts run by ctest beside the GoogleTest binary (included from CMakeLists.txt).

# Headless Chromium renders `size --report`'s HTML page: no console messages,
# the SVG in the DOM, a screenshot that is not blank. Skips (exit 77) only
# where chromium is not installed; scripts/setup.sh --test installs it.
add_test(NAME browser_report
         COMMAND ${PROJECT_SOURCE_DIR}/tests/browser_test.sh $<TARGET_FILE:modelcalc>)
set_tests_properties(browser_report PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# `modelcalc serve`'s page in headless Chromium through selenium (docs/web.md):
# the cards are the CLI's --json --strings, the batch slider moves the figures
# and both charts, a shared URL reopens the view, plan's table is the CLI's,
# bad input shows the CLI's error line, SIGINT stops the server. Skips (exit 77) only where selenium,
# chromium or chromedriver is missing; scripts/setup.sh --test installs them.
# Debian's python3-selenium is installed for the system interpreter, which a
# python3 earlier on PATH (pyenv, a venv) does not see: /usr/bin/python3 first.
find_program(MODELCALC_WEB_TEST_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(MODELCALC_WEB_TEST_PYTHON3 python3)
if(MODELCALC_WEB_TEST_PYTHON3)
  add_test(NAME browser_web_page COMMAND ${MODELCALC_WEB_TEST_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/web_test.py $<TARGET_FILE:modelcalc>)
  set_tests_properties(browser_web_page PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# The Python package against hand-derived figures and the executable's own
# output (python/tests), and the lab's success criteria against modelcalc.lab;
# built when the package is (MODELCALC_BUILD_PYTHON). Plain python3: both
# files are written so that pytest could collect them, but it is not needed.
if(TARGET modelcalc_python)
  add_test(NAME python_package
           COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/python/tests/test_modelcalc.py $<TARGET_FILE:modelcalc>)
  add_test(NAME python_lab COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/python/tests/test_lab.py)
  set_tests_properties(python_package python_lab PROPERTIES ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python"
                       TIMEOUT 300)
endif()

# The installable library: `cmake --install` to a temporary prefix, then the
# the library example (docs/design.md) built against it with find_package(modelcalc) (tests/install.cmake).
# Not in sanitized builds: their static library needs the sanitizer runtime in
# whatever links it, and the package this checks is the release one.
if(NOT MODELCALC_SANITIZE AND NOT MODELCALC_BUILD_FUZZ)
  set(MODELCALC_INSTALL_TEST_PYTHON "")
  if(TARGET modelcalc_python)  # the installed Python package is imported too
    set(MODELCALC_INSTALL_TEST_PYTHON -DPYTHON=${Python_EXECUTABLE} -DPYTHON_DIR=${MODELCALC_PYTHON_INSTALL_DIR})
  endif()
  add_test(NAME install_package
           COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                   -DWORK_DIR=${PROJECT_BINARY_DIR}/install_test ${MODELCALC_INSTALL_TEST_PYTHON}
                   -P ${PROJECT_SOURCE_DIR}/tests/install.cmake)
  set_tests_properties(install_package PROPERTIES TIMEOUT 300)
endif()

# The layering, checked the way a contributor would break it: each probe in
# tests/layering/ is an object library linked to one layer (built only by its
# test). An upward include must not compile; the control must.
set(MODELCALC_LAYER_PROBES
    "core_includes_report_up\;modelcalc_core"
    "core_includes_cli_up\;modelcalc_core"
    "report_includes_cli_up\;modelcalc_report"
    "report_includes_core\;modelcalc_report"
    "app_includes_report_up\;modelcalc_app"
    "app_includes_cli_up\;modelcalc_app"
    "report_includes_app\;modelcalc_report")
foreach(probe ${MODELCALC_LAYER_PROBES})
  list(GET probe 0 name)
  list(GET probe 1 layer)
  add_library(layering_${name} OBJECT EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tests/layering/${name}.cc)
  target_link_libraries(layering_${name} PRIVATE ${layer} nlohmann_json::nlohmann_json)
  add_test(NAME layering_${name}
           COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target layering_${name})
  # One ninja at a time in the build folder.
  set_tests_properties(layering_${name} PROPERTIES RESOURCE_LOCK modelcalc_build_dir)
  if(name MATCHES "_up$")
    # Passes only when the compiler cannot find the upward header (GCC's and clang's words).
    set_tests_properties(layering_${name} PROPERTIES
                         PASS_REGULAR_EXPRESSION "(report|flags)\\.h['`]?:? (No such file or directory|file not found)")
  endif()
endforeach()

# CLI11 comes from the system include path, which every layer sees, so the
# include-path check above cannot catch it: only src/cli may include it.
add_test(NAME layering_cli11_only_in_cli
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -P ${PROJECT_SOURCE_DIR}/tests/layering/cli11.cmake)
add_test(NAME layering_app
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -P ${PROJECT_SOURCE_DIR}/tests/layering/app.cmake)
