"""Browser steps shared by the dashboard tests (log in, open a page, wait for it)."""

from __future__ import annotations

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

WAIT_S = 180  # a loaded machine: the first search or session loads the embedding model


def wait(driver: WebDriver, condition, timeout: float = WAIT_S, message: str = ""):  # noqa: ANN001
    """``WebDriverWait(...).until(condition)`` with the suite's timeout."""
    return WebDriverWait(driver, timeout, poll_frequency=0.25).until(condition, message)


def login(driver: WebDriver, url: str, token: str) -> None:
    """Open ``/dashboard`` and log in by pasting the token into the form."""
    driver.get(f"{url}/dashboard")
    field = wait(driver, lambda d: d.find_element(By.ID, "token"))
    field.send_keys(token)
    driver.find_element(By.ID, "login-button").click()
    wait(driver, lambda d: d.find_element(By.ID, "whoami").text.strip() != "", message="login")
    wait(driver, lambda d: d.find_element(By.ID, "view").get_attribute("data-ready") == "notes")


def open_page(driver: WebDriver, hash_route: str) -> WebElement:
    """Navigate inside the app (``#/graph``...) and wait until the page has rendered."""
    page = hash_route.lstrip("#/").split("/")[0]
    # the same hash again fires no hashchange: render by hand then
    driver.execute_script(
        "document.getElementById('view').dataset.ready = '';"
        "if (location.hash === arguments[0]) window.dispatchEvent(new HashChangeEvent('hashchange'));"
        "else location.hash = arguments[0];",
        hash_route,
    )
    wait(
        driver,
        lambda d: d.find_element(By.ID, "view").get_attribute("data-ready") == page,
        message=hash_route,
    )
    return driver.find_element(By.ID, "view")


def live_status(driver: WebDriver) -> str:
    """The text of the live indicator (``live`` once the event stream is open)."""
    return driver.find_element(By.ID, "live-status").text
