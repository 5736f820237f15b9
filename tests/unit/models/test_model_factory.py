import pytest
from langchain_core.language_models import BaseChatModel

from agent.errors import ConfigError
from agent.models.chat import PRODUCTION_PARAMS, is_offline_policy, make_chat_model
from agent.models.embeddings import MINILM_DIMENSION, MiniLMEmbeddings, make_embeddings
from agent.settings import Settings


def test_offline_without_key():
    model = make_chat_model(Settings.from_env({}))
    assert is_offline_policy(model)
    assert is_offline_policy(model.bind_tools([]))


def test_gemini_with_key_and_production_params():
    model = make_chat_model(Settings.from_env({"GOOGLE_API_KEY": "test-key"}))
    assert isinstance(model, BaseChatModel)
    assert not is_offline_policy(model)
    assert type(model).__name__ == "ChatGoogleGenerativeAI"
    assert model.temperature == PRODUCTION_PARAMS["temperature"]
    assert model.top_p == PRODUCTION_PARAMS["top_p"]
    assert model.max_output_tokens == PRODUCTION_PARAMS["max_tokens"]
    assert "gemini-2.5-flash" in model.model


def test_overrides_win():
    model = make_chat_model(Settings.from_env({"GOOGLE_API_KEY": "k"}), temperature=0.0, top_p=0.5)
    assert model.temperature == 0.0
    assert model.top_p == 0.5


def test_explicit_gemini_without_key_is_a_clear_error():
    with pytest.raises(ConfigError, match="GOOGLE_API_KEY"):
        make_chat_model(Settings.from_env({"KAG_MODEL": "google_genai:gemini-2.5-flash"}))


def test_offline_embeddings_are_minilm_without_loading():
    emb = make_embeddings(Settings.from_env({}))
    assert isinstance(emb, MiniLMEmbeddings)
    assert emb.dimension == MINILM_DIMENSION == 384
    assert emb.model_name == "all-MiniLM-L6-v2"
    assert make_embeddings(Settings.from_env({})) is emb  # one copy of the weights per process


def test_minilm_loads_lazily_on_first_encode():
    fresh = MiniLMEmbeddings()
    assert fresh._model is None


def test_gemini_embeddings_with_key():
    emb = make_embeddings(Settings.from_env({"GOOGLE_API_KEY": "k"}))
    assert emb.model_name.startswith("models/gemini-embedding")
    assert emb.dimension == 768


def test_unknown_embeddings_provider():
    with pytest.raises(ConfigError, match="KAG_EMBEDDINGS"):
        make_embeddings(Settings.from_env({"KAG_EMBEDDINGS": "acme:thing"}))
