"""Selenium driving Debian's ``chromium`` through ``chromedriver`` (never a downloaded browser).

``make install`` installs both packages (``apt-get install chromium chromium-driver``);
Selenium Manager is bypassed by naming the driver and the binary explicitly.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1360,1400",
)


def chromium(download_dir: Path) -> webdriver.Chrome:
    """A headless chromium with a fresh profile; downloads land in ``download_dir``."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        raise RuntimeError(
            f"{', '.join(missing)} missing: run `make install` (apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='kag-chromium-')}")
    options.add_experimental_option(
        "prefs",
        {
            "download.default_directory": str(download_dir),
            "download.prompt_for_download": False,
            "safebrowsing.enabled": False,
        },
    )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.execute_cdp_cmd(
        "Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(download_dir)}
    )
    driver.set_page_load_timeout(60)
    return driver


def fresh(driver: webdriver.Chrome, download_dir: Path, origin: str) -> None:
    """Make a running chromium as fresh as a new profile: one blank tab, no state, new downloads.

    A new tab has its own ``sessionStorage``; cookies, the cache and ``origin``'s storage
    are cleared through the DevTools protocol; downloads go to ``download_dir`` from now on.
    """
    old = driver.window_handles
    driver.switch_to.new_window("tab")
    for handle in old:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
    behavior = {"behavior": "allow", "downloadPath": str(download_dir)}
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", behavior)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", behavior)
    driver.get_log("browser")  # drop the previous test's console messages
