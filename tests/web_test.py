#!/usr/bin/env python3
"""Browser test of `modelcalc serve`'s page (docs/web.md).

    tests/web_test.py path/to/modelcalc

Starts `modelcalc serve` on a free port and drives the page in headless
Chromium (selenium + chromedriver) as a person would:
- picks llama-3.1-8b and the H100; the cards show the CLI's own strings
  (`size ... --json --strings`, run here, not pasted);
- moves the batch slider one step (1 -> 2): the aggregate figure becomes the
  CLI's for batch 2, the batch chart's ring and the roofline's operating point
  move;
- opens the address bar's URL afresh: the same view;
- types a bad context: the CLI's reason under the field's key, the figures cleared;
- plans: the table's first row is the CLI's plan JSON's, with its deciding
  constraint, and the frontier is drawn (with 'published runs' ticked, with its measured key);
- the JSON download link gives the CLI's document.
The browser console stays free of errors (but the expected 400s); SIGINT
stops the server with exit status 0.

Exit 0 pass, 1 fail, 77 skip: only when selenium, chromium or chromedriver is
not installed (scripts/setup.sh --test installs them).
"""

import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request

SKIP = 77
MODEL, GPU = "llama-3.1-8b", "h100"


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


def cli_json(binary, *args, ok=(0,)):
    out = subprocess.run([binary, *args, "--json"], capture_output=True, text=True, timeout=120)
    if out.returncode not in ok:
        fail(f"{args}: exit {out.returncode}: {out.stderr}")
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
        from selenium.webdriver.common.keys import Keys
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

    # What the page must show, from the CLI itself: the page's defaults are context 8,192 and fp16 weights.
    view = ["--model", MODEL, "--gpu", GPU, "--seq", "8192", "--dtype", "fp16"]
    at1 = cli_json(binary, "size", *view, "--batch", "1", "--strings")
    at2 = cli_json(binary, "size", *view, "--batch", "2", "--strings")
    gpu_key = at1["gpu"]["key"]  # the catalog key the page's GPU list uses for "h100"
    plain = cli_json(binary, "size", *view, "--batch", "2")
    # The CLI names the flag (--seq), the web the field's key (context); the reason is the CLI's.
    bad_error = cli_error(binary, "size", "--model", MODEL, "--gpu", GPU, "--seq", "12x", "--batch", "2")
    if not bad_error.startswith("--seq: "):
        fail(f"the CLI's error does not name --seq: {bad_error!r}")
    bad_error = "context: " + bad_error.removeprefix("--seq: ")
    plan_args = ["--model", MODEL, "--isl", "2048", "--osl", "512", "--qps", "10", "--tpot", "50ms", "--top", "10"]
    plan_cli = cli_json(binary, "plan", *plan_args, ok=(0, 1))

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
                     "--disable-background-networking", "--no-first-run", "--window-size=1280,2000",
                     f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        driver.set_page_load_timeout(60)
        wait = WebDriverWait(driver, 60)
        text = lambda id_: driver.find_element(By.ID, id_).text  # noqa: E731
        body = lambda: driver.find_element(By.TAG_NAME, "body")  # noqa: E731

        def shown_with(*parts):  # the page has drawn the view of a query holding every part
            wait.until(lambda d: all(p in (body().get_attribute("data-shown") or "") for p in parts))

        driver.get(f"http://127.0.0.1:{port}/")
        if driver.title != "modelcalc":
            fail(f"page title {driver.title!r}")
        wait.until(lambda d: body().get_attribute("data-ready") == "true")
        if "8,192 tokens" not in driver.find_element(By.ID, "size-panel").text:
            fail("the page does not state its default context of 8,192 tokens")

        # Pick the model and the GPU; the cards are the CLI's strings.
        Select(driver.find_element(By.ID, "model")).select_by_value(MODEL)
        Select(driver.find_element(By.ID, "gpu")).select_by_value(gpu_key)
        shown_with(f"model={MODEL}", f"gpu={gpu_key}", "batch=1&")
        s1 = at1["strings"]
        checks = {"params-total": "params.total", "weights": "memory_per_gpu.weights",
                  "kv-seq": "memory_per_gpu.kv_per_sequence", "step": "decode_step.seconds",
                  "decode-one": "decode_step.tokens_per_s_per_sequence",
                  "decode-agg": "decode_step.tokens_per_s_aggregate", "regime": "decode_step.regime"}
        for id_, key in checks.items():
            if not text(id_).startswith(s1[key]):
                fail(f"card {id_} shows {text(id_)!r}, the CLI prints {s1[key]!r} ({key})")
        if s1["decode.tokens_per_s_aggregate"] not in text("decode-agg-tb"):
            fail(f"the textbook view under the aggregate is {text('decode-agg-tb')!r}")
        if text("error"):
            fail("an error line is shown for valid input: " + text("error"))
        roofline = driver.find_element(By.ID, "roofline").get_attribute("innerHTML")
        if f'id="pt-{gpu_key}-decode_b1"' not in roofline:
            fail("the roofline lacks this deployment's batch-1 point")
        if driver.find_element(By.ID, "batch-svg").get_attribute("data-batch") != "1":
            fail("the batch chart does not mark batch 1")

        # Move the batch slider one step: batch 2, a new aggregate, the charts follow.
        driver.find_element(By.ID, "batch-slider").send_keys(Keys.ARROW_RIGHT)
        shown_with("batch=2&")
        s2 = at2["strings"]
        if not text("decode-agg").startswith(s2["decode_step.tokens_per_s_aggregate"]):
            fail(f"after the slider: aggregate {text('decode-agg')!r}, the CLI prints "
                 f"{s2['decode_step.tokens_per_s_aggregate']!r} for batch 2")
        if s1["decode_step.tokens_per_s_aggregate"] == s2["decode_step.tokens_per_s_aggregate"]:
            fail("batch 1 and 2 have the same aggregate: the check above proves nothing")
        if driver.find_element(By.ID, "batch-svg").get_attribute("data-batch") != "2":
            fail("the batch chart's ring did not move to batch 2")
        if f'id="pt-{gpu_key}-decode_b2"' not in driver.find_element(By.ID, "roofline").get_attribute("innerHTML"):
            fail("the roofline lacks the batch-2 operating point after the slider moved")

        # The JSON download is the CLI's document.
        href = driver.find_element(By.ID, "download-json").get_attribute("href")
        with urllib.request.urlopen(href, timeout=60) as r:
            if json.loads(r.read()) != plain:
                fail(f"the JSON download {href} differs from `size --json`")

        # A shared link opens the same view.
        shared = driver.current_url
        cards = {id_: text(id_) for id_ in checks}
        driver.get("about:blank")
        driver.get(shared)
        wait.until(lambda d: body().get_attribute("data-ready") == "true")
        shown_with(f"gpu={gpu_key}", "batch=2&")
        if {id_: text(id_) for id_ in checks} != cards:
            fail(f"the shared link {shared} shows other figures")
        if driver.find_element(By.ID, "batch").get_attribute("value") != "2":
            fail("the shared link lost the batch")

        # Plan: the table's rows are the CLI's, each with its deciding constraint; the frontier is drawn.
        driver.find_element(By.ID, "plan").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#plan-rows tr"))
        rows = driver.find_elements(By.CSS_SELECTOR, "#plan-rows tr")
        first = [td.text for td in rows[1].find_elements(By.TAG_NAME, "td")]
        want = plan_cli["configs"][0] if plan_cli["configs"] else plan_cli["misses"][0]
        if (first[0] != want["gpu"] or first[1] != want["engine"]["profile"] or first[7] != want["text"]["tpot"]
                or not first[-1].startswith(want["deciding"])):
            fail(f"plan's first row {first}, the CLI's {want['gpu']} {want['engine']['profile']} "
                 f"{want['text']['tpot']} {want['deciding']!r}")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#plan-frontier svg"))
        # The published runs beside the frontier (compare=shared): the chart gains its 'measured' key.
        driver.find_element(By.ID, "plan_published").click()
        driver.find_element(By.ID, "plan").click()
        wait.until(lambda d: "measured" in d.find_element(By.ID, "plan-frontier").get_attribute("innerHTML"))

        # Bad input: the CLI's own line, and the figures cleared.
        seq = driver.find_element(By.ID, "seq")
        seq.clear()
        seq.send_keys("12x", Keys.TAB)
        wait.until(ec.text_to_be_present_in_element((By.ID, "error"), "context"))
        if text("error") != bad_error:
            fail(f"error line {text('error')!r}, the CLI says {bad_error!r}")
        if text("params-total") != "–":
            fail("the figures of the previous answer are still shown beside the error")

        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"
                  and "status of 400" not in e.get("message", "")]
        if errors:  # the 400s of the invalid input are expected; nothing else
            fail(f"browser console errors: {errors}")
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001 - the server must still be stopped
                pass
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
        try:
            code = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)
            fail("SIGINT did not stop the server within 30 s")
        shutil.rmtree(profile, ignore_errors=True)
    rest = server.stderr.read()
    if code != 0 or "modelcalc: stopped (SIGINT)" not in rest:
        fail(f"SIGINT: exit {code}, stderr {rest!r}")
    print(f"PASS: the page shows the CLI's strings for {MODEL} on {gpu_key}, follows the batch slider "
          f"({s1['decode_step.tokens_per_s_aggregate']} -> {s2['decode_step.tokens_per_s_aggregate']}), "
          f"reopens from its URL, plans, shows the CLI's error line; SIGINT stops the server")


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - a selenium timeout or crash is a failure, with its reason
        fail(f"{type(e).__name__}: {e}")
