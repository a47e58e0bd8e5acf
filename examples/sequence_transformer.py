"""A small causal transformer that learns to reverse sequences, trained in a Session with checkpoints.

Each example is ``a_1 .. a_L SEP a_L .. a_1`` over digits 0-9 (SEP is token
10), fresh random ones every step. The model reads the sequence less its
last token and predicts the next token at every position (teacher forcing);
the loss and the accuracy count only the output half, the L positions from
SEP on, whose targets are the reversed digits. The model: token embedding +
learned positional embedding, ``blocks`` pre-norm blocks of layer_norm +
causal multi-head self-attention and layer_norm + a gelu MLP, each with a
residual, then layer_norm and a dense layer to the vocabulary; Adam with
warmup and a cosine decay. The loop saves a checkpoint every
``checkpoint_every`` steps, stops halfway and resumes in a new Session from
the newest checkpoint.

    python examples/sequence_transformer.py    # full run: prints the token accuracy (target 0.99)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

TARGET = 0.99
DIGITS = 10
SEP = DIGITS  # the separator token
VOCAB = DIGITS + 1


def make_batch(rng: np.random.Generator, batch: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), each (batch, 2 * length): a sequence then SEP then its reverse, shifted by one."""
    digits = rng.integers(0, DIGITS, size=(batch, length))
    sep = np.full((batch, 1), SEP)
    sequence = np.concatenate([digits, sep, digits[:, ::-1]], axis=1).astype(np.int32)
    return sequence[:, :-1], sequence[:, 1:]


def block(h, heads: int, width: int, name: str):
    """A pre-norm transformer block: causal self-attention, then an MLP, each added back to ``h``."""
    with sg.name_scope(name):
        a = sg.nn.layer_norm(h, name="ln1")
        h = h + sg.nn.multi_head_attention(a, num_heads=heads, is_causal=True, name="attention")
        m = sg.nn.layer_norm(h, name="ln2")
        m = sg.nn.dense(sg.nn.gelu(sg.nn.dense(m, 4 * width, name="mlp1")), width, name="mlp2")
        return h + m


def build(length: int, width: int, heads: int, blocks: int, steps: int, learning_rate: float):
    """The model graph and the tensors the loop uses, by name."""
    positions = 2 * length
    g = sg.Graph("sequence_transformer")
    with g:
        tokens = sg.placeholder(("batch", positions), sg.int32, name="tokens")
        targets = sg.placeholder(("batch", positions), sg.int32, name="targets")
        h = sg.nn.embedding(tokens, VOCAB, width, name="embed")
        h = h + sg.nn.embedding(snp.arange(positions), positions, width, name="position")
        for i in range(blocks):
            h = block(h, heads, width, f"block{i + 1}")
        logits = sg.nn.dense(sg.nn.layer_norm(h, name="ln_final"), VOCAB, name="head")
        out_logits, out_targets = logits[:, length:], targets[:, length:]  # the output half
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(out_logits, out_targets).mean()
        schedule = sg.optim.warmup_cosine_decay(learning_rate, warmup_steps=steps // 10, steps=steps)
        train = sg.optim.adam(schedule, clip_norm=1.0).minimize(loss)
        acc = (snp.argmax(out_logits, -1) == out_targets).mean()
    return g, {
        "tokens": tokens,
        "targets": targets,
        "logits": logits,
        "loss": loss,
        "train": train,
        "acc": acc,
    }


def train_steps(sess, t, rng, batch, length, start, stop, every, prefix) -> list:
    """Steps ``start + 1``..``stop`` on fresh batches, saving every ``every`` steps and at ``stop``."""
    losses = []
    for step in range(start + 1, stop + 1):
        xb, yb = make_batch(rng, batch, length)
        loss, _ = sess.run([t["loss"], t["train"]], {t["tokens"]: xb, t["targets"]: yb})
        losses.append(float(loss))
        if step % every == 0 or step == stop:
            sess.save(prefix, step=step, keep=2)
    return losses


def main(
    steps: int = 500,
    batch: int = 64,
    length: int = 8,
    width: int = 64,
    heads: int = 4,
    blocks: int = 2,
    learning_rate: float = 3e-3,
    checkpoint_every: int = 100,
    checkpoint_dir: str | None = None,
    seed: int = 0,
    resume_at: int | None = None,
    verbose: bool = False,
) -> dict:
    """Train for ``steps``, stopping after step ``resume_at`` (default: halfway) and going on in a
    new Session restored from the newest checkpoint; returns the figures.

    The result has ``losses`` (one per step), ``accuracy`` (token accuracy on
    the output half of 4096 fresh sequences), ``resumed_from`` and ``seconds``.
    """
    start_time = time.perf_counter()
    rng = np.random.default_rng(seed)
    g, t = build(length, width, heads, blocks, steps, learning_rate)
    with tempfile.TemporaryDirectory() as scratch:
        prefix = os.path.join(checkpoint_dir or scratch, "sequence_transformer")
        stop_at = steps // 2 if resume_at is None else resume_at
        sess = sg.Session(g, seed=seed)
        losses = train_steps(sess, t, rng, batch, length, 0, stop_at, checkpoint_every, prefix)
        if verbose:
            print(f"step {stop_at}: loss {np.mean(losses[-20:]):.4f}, saved {prefix}-{stop_at}; stopping")
        sess.close()

        resumed = sg.Session(g, seed=seed + 1)  # other initial weights until restored
        path = resumed.restore(prefix)  # the newest checkpoint
        resumed_from = int(resumed.get("global_step"))
        if verbose:
            print(f"a new Session restored {os.path.basename(path)} (global_step {resumed_from})")
        losses += train_steps(resumed, t, rng, batch, length, resumed_from, steps, checkpoint_every, prefix)
        xs, ys = make_batch(np.random.default_rng(seed + 12345), 4096, length)
        accuracy = float(resumed.run(t["acc"], {t["tokens"]: xs, t["targets"]: ys}))
        resumed.close()
    return {
        "losses": losses,
        "accuracy": accuracy,
        "resumed_from": resumed_from,
        "seconds": time.perf_counter() - start_time,
    }


if __name__ == "__main__":
    result = main(verbose=True)
    losses = result["losses"]
    print(
        f"{len(losses)} steps in {result['seconds']:.1f} s; loss {np.mean(losses[:20]):.3f} -> "
        f"{np.mean(losses[-20:]):.4f}"
    )
    print(
        f"token accuracy on the output half of 4096 new sequences: {result['accuracy']:.4f} (target {TARGET})"
    )
    sys.exit(0 if result["accuracy"] >= TARGET else 1)
