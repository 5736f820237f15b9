"""MiniLM encodes each text of a turn once: documents reuse the query memo and repeat nothing."""

from __future__ import annotations

from collections.abc import Sequence

from agent.models.embeddings import MiniLMEmbeddings


class Counting(MiniLMEmbeddings):
    """MiniLM whose encoder is a count of the texts it was given (no model loads)."""

    def __init__(self) -> None:
        """No weights: ``_encode`` below stands in for them."""
        super().__init__()
        self.encoded: list[str] = []

    def _encode(self, texts: Sequence[str]) -> list[list[float]]:
        self.encoded.extend(texts)
        return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]


def test_a_request_read_as_a_query_is_not_encoded_again_when_stored() -> None:
    provider = Counting()
    query = provider.embed_query("What does the learner study?")
    stored = provider.embed_documents(["What does the learner study?", "You study law."])
    assert stored[0] == query
    assert provider.encoded == ["What does the learner study?", "You study law."]


def test_repeated_texts_of_one_batch_are_encoded_once_and_keep_their_places() -> None:
    provider = Counting()
    texts = ["A join.", "Another join.", "A join.", "A join."]
    vectors = provider.embed_documents(texts)
    assert provider.encoded == ["A join.", "Another join."]
    assert vectors == [provider._encode([t])[0] for t in texts]
    vectors[0][0] = -1.0  # callers get their own lists
    assert provider.embed_documents(["A join."])[0][0] == len("A join.")


def test_documents_do_not_fill_the_query_memo() -> None:
    provider = Counting()
    provider.embed_documents(["You study law."])
    provider.embed_query("You study law.")
    assert provider.encoded == ["You study law.", "You study law."]
