"""Each provider's client against a local server that speaks its real wire format: the request
as the API expects it, the text and the usage read from its answer, and every failure an
``LlmError`` that never carries the key."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from memlode.config import Settings
from memlode.errors import InvalidInput, LlmError
from memlode.llm import AnthropicClient, OllamaClient, OpenAIClient, make_client

PROVIDERS = ("ollama", "openai", "anthropic")
KEY = "sk-test-0123456789abcdefghij"  # fake_llm.KEY


def _client(server: Any) -> Any:
    return make_client(Settings.load({}, environ=server.env()))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_call_sends_the_real_request_and_reads_text_and_usage(
    fake_llm: Any, provider: str
) -> None:
    server = fake_llm(provider)
    client = _client(server)
    answer = client.complete("Compress notes.", "1. Read a.py 3 times\n2. Ran make 4 times", 200)
    assert server.problems == []
    [seen] = server.requests
    assert seen.body["model"] == f"{provider}-test-model"
    assert seen.user_text == "1. Read a.py 3 times\n2. Ran make 4 times"
    assert answer.text == "1. Fact 1: Read a.py 3 times\n2. Fact 2: Ran make 4 times"
    assert (answer.input_tokens, answer.output_tokens) != (0, 0)
    assert answer.input_tokens + answer.output_tokens == server.tokens
    assert not answer.estimated
    if provider == "ollama":
        assert seen.body["stream"] is False and seen.body["options"]["num_predict"] == 200
        assert "authorization" not in seen.headers  # the key goes nowhere it is not needed
    elif provider == "openai":
        assert seen.headers["authorization"] == f"Bearer {KEY}"
        assert seen.body["max_tokens"] == 200
        assert seen.body["messages"][0] == {"role": "system", "content": "Compress notes."}
    else:
        assert seen.headers["x-api-key"] == KEY
        assert seen.headers["anthropic-version"] == "2023-06-01"
        assert seen.body["system"] == "Compress notes." and seen.body["max_tokens"] == 200


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_error_is_an_llm_error_without_the_key(fake_llm: Any, provider: str) -> None:
    server = fake_llm(provider, "500")
    with pytest.raises(LlmError) as caught:
        _client(server).complete("s", "1. x", 50)
    message = str(caught.value)
    assert "HTTP 500" in message and "internal server error" in message
    assert provider in message and KEY not in message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_that_is_not_json_is_an_llm_error(fake_llm: Any, provider: str) -> None:
    server = fake_llm(provider, "garbage")
    with pytest.raises(LlmError, match="not JSON"):
        _client(server).complete("s", "1. x", 50)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_refusal_is_an_llm_error(fake_llm: Any, provider: str) -> None:
    server = fake_llm(provider, "refuse")
    with pytest.raises(LlmError, match="refused"):
        _client(server).complete("s", "1. x", 50)


def test_an_unreachable_server_is_an_llm_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    client = OllamaClient("m", f"http://127.0.0.1:{port}", timeout=5)
    with pytest.raises(LlmError, match="cannot reach the ollama server"):
        client.complete("s", "u", 10)


def test_a_refused_request_is_an_llm_error_with_the_servers_words(fake_llm: Any) -> None:
    server = fake_llm("openai")
    # an Ollama client pointed at an OpenAI server: its path is refused (400, JSON)
    client = OllamaClient("m", server.url)
    with pytest.raises(LlmError, match="HTTP 400: wrong path /api/chat"):
        client.complete("s", "u", 10)
    server.problems.clear()


def test_the_key_is_in_no_repr_and_urls_lose_their_password(fake_llm: Any) -> None:
    server = fake_llm("openai")
    settings = Settings.load({}, environ=server.env())
    assert KEY not in repr(settings) and KEY not in repr(_client(server))
    client = OpenAIClient("m", "http://user:hunter2pass@127.0.0.1:9/v1", api_key=KEY)
    assert client.url == "http://user:hunter2pass@127.0.0.1:9"  # a trailing /v1 is dropped
    with pytest.raises(LlmError) as caught:
        client.complete("s", "u", 10)
    assert "hunter2pass" not in str(caught.value) and KEY not in str(caught.value)


def test_settings_read_the_llm_table_and_each_providers_key_variable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[llm]\nprovider = "anthropic"\nmodel = "claude-x"\ndaily_tokens = 5000\n'
    )
    env = {"MEMLODE_HOME": str(home), "ANTHROPIC_API_KEY": "from-env", "OPENAI_API_KEY": "other"}
    settings = Settings.load({}, environ=env)
    assert (settings.llm_provider, settings.llm_model) == ("anthropic", "claude-x")
    assert settings.llm_daily_tokens == 5000 and settings.llm_api_key == "from-env"
    assert isinstance(make_client(settings), AnthropicClient)
    # the environment wins over the file; MEMLODE_LLM_API_KEY over the provider's variable
    env |= {"MEMLODE_LLM_PROVIDER": "OpenAI", "MEMLODE_LLM_API_KEY": "mine"}
    settings = Settings.load({}, environ=env)
    assert (settings.llm_provider, settings.llm_api_key) == ("openai", "mine")
    assert Settings.load({}, environ={"MEMLODE_HOME": str(tmp_path)}).llm_provider == "none"
    assert make_client(Settings.load({}, environ={"MEMLODE_HOME": str(tmp_path)})) is None


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("MEMLODE_LLM_PROVIDER", "gpt", "unknown language model provider"),
        ("MEMLODE_LLM_DAILY_TOKENS", "-1", "whole number of tokens"),
        ("MEMLODE_LLM_DAILY_TOKENS", "lots", "whole number of tokens"),
    ],
)
def test_bad_llm_settings_are_clear_errors(
    tmp_path: Path, name: str, value: str, says: str
) -> None:
    with pytest.raises(InvalidInput, match=says):
        Settings.load({}, environ={"MEMLODE_HOME": str(tmp_path), name: value})


def test_a_hosted_provider_without_a_key_says_where_to_put_one(tmp_path: Path) -> None:
    settings = Settings.load(
        {}, environ={"MEMLODE_HOME": str(tmp_path), "MEMLODE_LLM_PROVIDER": "anthropic"}
    )
    with pytest.raises(InvalidInput, match="ANTHROPIC_API_KEY"):
        make_client(settings)


def test_a_key_the_server_echoes_back_is_redacted(fake_llm: Any) -> None:
    server = fake_llm("openai")
    client = OpenAIClient("m", server.url, api_key="sk-wrong-abcdefghijklmnopqrstuvwx")
    with pytest.raises(LlmError, match="HTTP 400") as caught:
        client.complete("s", "u", 10)
    # the fake refuses the wrong key, quoting what it got, as some servers do
    assert "sk-wrong-abcdefghijklmnopqrstuvwx" not in str(caught.value)
    server.problems.clear()
