"""One process loads MiniLM once: the language layer reads with the product's own copy.

Each case runs in a fresh interpreter (this process's providers are shared by other tests),
with ``KAG_EMBED_THREADS`` set as a deployment would: the product's settings then differ
from the defaults, which used to give the language layer a second MiniLM of its own. The
count is the factory's (``minilm_providers``), and a provider counts as loaded once its
model is open; nothing is mocked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

LANGUAGE = "vectors = encode(['What is a left join?', 'I moved to Hanoi.'])\n"
PRODUCT = "product = Resources(Settings.from_env(), tracing=False).embeddings\nproduct.embed_query('joins')\n"
REPORT = (
    "from agent.models.embeddings import minilm_providers\n"
    "built = minilm_providers()\n"
    "print(len(built), sum(p._model is not None for p in built), encoder() is product, product.threads)\n"
)


@pytest.mark.parametrize("first", ["language", "product"])
def test_the_language_layer_and_the_product_share_one_loaded_minilm(first: str) -> None:
    steps = [LANGUAGE, PRODUCT] if first == "language" else [PRODUCT, LANGUAGE]
    code = (
        "from agent.language.encoder import encode, encoder\n"
        "from agent.resources import Resources\n"
        "from agent.settings import Settings\n" + "".join(steps) + REPORT
    )
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_API_KEY", "KAG_EMBEDDINGS")}
    env["KAG_EMBED_THREADS"] = "2"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    # providers built, providers loaded, the encoder is the product's, the product's threads
    assert done.stdout.split() == ["1", "1", "True", "2"], done.stdout
