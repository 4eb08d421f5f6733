#!/usr/bin/env python3
"""Browser test of `modelcalc serve`'s page (README "Web page").

    tests/web_test.py path/to/modelcalc

Starts `modelcalc serve` on a free port, opens the page in headless Chromium
(selenium + chromedriver), picks llama-3.1-8b and the H100, and checks the
parameter count the page shows against the CLI's own --json (parsed here from
`modelcalc size --json`, not pasted); then types an invalid context and checks
that the page shows the CLI's error line. The browser console must stay free of
errors. Always kills the server.

Exit 0 pass, 1 fail, 77 skip: only when selenium, chromium or chromedriver is
not installed (scripts/setup.sh --test installs them).
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(why):
    print(f"SKIP: {why} (scripts/setup.sh --test installs it); the web page test did not run")
    sys.exit(SKIP)


def fail(why):
    print(f"FAIL: {why}")
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli_json(binary, *args):
    out = subprocess.run([binary, *args, "--json"], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def cli_error(binary, *args):
    res = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)
    if res.returncode != 2:
        fail(f"{args} should be bad input (exit 2), got {res.returncode}")
    return res.stderr.strip().removeprefix("modelcalc: error: ")


def main():
    if len(sys.argv) != 2:
        fail("usage: web_test.py path/to/modelcalc")
    binary = sys.argv[1]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec
        from selenium.webdriver.support.ui import Select, WebDriverWait
    except ImportError:
        skip("python3-selenium is not installed")
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chrome:
        skip("chromium is not installed")
    if not driver_path:
        skip("chromedriver (Debian: chromium-driver) is not installed")

    # What the page must show, from the CLI itself.
    expected = cli_json(binary, "size", "--model", "llama-3.1-8b", "--gpu", "h100")
    total = expected["params"]["total"]
    gpu_key = expected["gpu"]["key"]  # the catalog key the page's GPU list uses for "h100"
    bad_error = cli_error(binary, "size", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "12x")

    port = free_port()
    server = subprocess.Popen([binary, "serve", "--port", str(port)], stderr=subprocess.PIPE, text=True)
    driver = None
    profile = tempfile.mkdtemp(prefix="modelcalc-web-test-")
    try:
        line = server.stderr.readline().strip()  # printed once listening
        if line != f"modelcalc: serving on http://127.0.0.1:{port}/":
            fail(f"unexpected first line from serve: {line!r} (exit {server.poll()})")

        options = webdriver.ChromeOptions()
        options.binary_location = chrome
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--no-first-run", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        driver.set_page_load_timeout(60)
        wait = WebDriverWait(driver, 60)

        driver.get(f"http://127.0.0.1:{port}/")
        if driver.title != "modelcalc":
            fail(f"page title {driver.title!r}")
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")

        # Pick the model and the GPU, then wait for the figures of that choice.
        Select(driver.find_element(By.ID, "model")).select_by_value("llama-3.1-8b")
        Select(driver.find_element(By.ID, "gpu")).select_by_value(gpu_key)
        driver.find_element(By.ID, "calculate").click()
        shown_total = re.compile(r"^([\d,]+)")

        def shown(d):
            m = shown_total.match(d.find_element(By.ID, "params-total").text)
            return m and int(m.group(1).replace(",", ""))

        wait.until(lambda d: shown(d) == total and d.find_element(By.ID, "report").text.strip())
        if "llama-3.1-8b" not in driver.find_element(By.ID, "report").text:
            fail("the text report does not name the model")
        if driver.find_element(By.ID, "error").text.strip():
            fail("an error line is shown for valid input: " + driver.find_element(By.ID, "error").text)

        # An invalid context: the CLI's own line appears, and the figures are cleared.
        seq = driver.find_element(By.ID, "seq")
        seq.clear()
        seq.send_keys("12x")
        driver.find_element(By.ID, "calculate").click()
        wait.until(ec.text_to_be_present_in_element((By.ID, "error"), "--seq"))
        if driver.find_element(By.ID, "error").text != bad_error:
            fail(f"error line {driver.find_element(By.ID, 'error').text!r}, the CLI says {bad_error!r}")
        if driver.find_element(By.ID, "params-total").text != "–":
            fail("the figures of the previous answer are still shown beside the error")

        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"
                  and "/api/size" not in e.get("message", "") and "/api/text/size" not in e.get("message", "")]
        if errors:  # the 400s of the invalid input are expected; nothing else
            fail(f"browser console errors: {errors}")
        print(f"PASS: the page shows {total:,} parameters for llama-3.1-8b (the CLI's --json), "
              f"and the CLI's error line for --seq 12x")
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001 - the server must still be killed
                pass
        server.kill()
        server.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - a selenium timeout or crash is a failure, with its reason
        fail(f"{type(e).__name__}: {e}")
