"""The language layer's vector memo: the same vectors as ``encode``, and no learner text kept."""

from __future__ import annotations

import numpy as np

from agent.language import encoder
from agent.language.encoder import encode, encode_kept


def test_kept_vectors_are_the_encoded_ones_and_keyed_by_digest_only() -> None:
    texts = ["I rent a small flat in Tartu.", "My deck has 150 words.", "I rent a small flat in Tartu."]
    kept = encode_kept(texts)
    assert kept.shape == (3, encode([]).shape[1])
    assert np.allclose(kept, encode(texts), atol=1e-5)
    assert np.allclose(kept[0], kept[2])
    # Erasure cannot reach a process memo, so it must not hold the learner's words.
    keys = list(encoder._kept)
    assert keys and all(isinstance(k, bytes) and len(k) == 32 for k in keys)
    assert not any(b"Tartu" in k for k in keys)
    assert encode_kept([]).shape[0] == 0


def test_the_memo_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(encoder, "KEPT", 2)
    encode_kept(["one sentence", "another sentence", "a third sentence"])
    assert len(encoder._kept) <= 2
