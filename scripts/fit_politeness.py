"""Fit the weights of the politeness strategies on the development part of the Stanford
Politeness Corpus (Wikipedia half) and write them into scoring/patterns/politeness.yaml.

    .venv/bin/python scripts/fit_politeness.py [--csv PATH] [--dry-run] [--test]

The task is the paper's: top quartile (polite) against bottom quartile (impolite); the quartile
cuts come from the development part. The model is an L2-regularised logistic regression on the
binary strategy features (one per strategy with `fit: true`; strategies with `fit: false` keep
their hand-set weight as a fixed offset), fitted by Newton's method: deterministic, numpy only.
The L2 strength is chosen by 5-fold cross-validation on the development part (the strongest
within 0.005 of the best accuracy), then the model is refitted on the whole development part.
The test part is scored only with --test, and never used for a choice.
Danescu-Niculescu-Mizil, Sudhof, Jurafsky, Leskovec and Potts, ACL 2013.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoring import politeness  # noqa: E402
from scoring.politeness import strategies  # noqa: E402
from tests.politeness_corpus import corpus_path, load, quartile_task  # noqa: E402

YAML = ROOT / "scoring" / "patterns" / "politeness.yaml"
LAMBDAS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
FOLDS = 5
TOLERANCE = 0.005
THRESHOLD = 0.5  # balanced classes (top vs bottom quartile)


def design(items, fitted):
    """Binary features of the fitted strategies and the fixed offset of the hand-set ones."""
    fixed = {s.name: s.weight for s in strategies() if not s.fit}
    x = np.zeros((len(items), len(fitted)))
    offset = np.zeros(len(items))
    impolite_found = np.zeros(len(items), dtype=bool)
    y = np.zeros(len(items))
    index = {name: j for j, name in enumerate(fitted)}
    for i, (request, polite) in enumerate(items):
        for found in politeness.find(request.text):
            if found.name in index:
                x[i, index[found.name]] = 1.0
            elif not found.cue:  # a parsed cue, like a bare command, makes a request impolite but weighs nothing
                offset[i] += fixed.get(found.name, 0.0)
            impolite_found[i] |= found.impolite
        y[i] = float(polite)
    return x, offset, y, impolite_found


def fit(x, offset, y, lam, steps=50):
    """Newton's method for L2 logistic regression; the intercept (last column) is not penalised."""
    a = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(a.shape[1])
    penalty = np.full(a.shape[1], lam)
    penalty[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(a @ w + offset)))
        grad = a.T @ (p - y) + penalty * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-9 * np.eye(a.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w[:-1], w[-1]


def accuracy(x, offset, y, weights, intercept, impolite_found, threshold=THRESHOLD):
    """The decision of scoring.politeness.assess for a written request: score >= threshold and
    nothing impolite (`impolite_found`, from design())."""
    p = 1.0 / (1.0 + np.exp(-(x @ weights + intercept + offset)))
    return float(np.mean(((p >= threshold) & ~impolite_found) == (y == 1.0)))


def cross_validate(x, offset, y, impolite_found, lam):
    folds = np.arange(len(y)) % FOLDS
    scores = []
    for k in range(FOLDS):
        train, held = folds != k, folds == k
        w, b = fit(x[train], offset[train], y[train], lam)
        scores.append(accuracy(x[held], offset[held], y[held], w, b, impolite_found[held]))
    return float(np.mean(scores))


def write_yaml(weights: dict[str, float], intercept: float, note: str) -> None:
    lines, current = [], None
    for line in YAML.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"^  - name: (\w+)\s*$", line):
            current = m.group(1)
        elif current in weights and re.match(r"^    weight: ", line):
            line = f"    weight: {weights[current]:.3f}"
        elif re.match(r"^  intercept: ", line):
            line = f"  intercept: {intercept:.3f}"
        elif re.match(r"^  threshold: ", line):
            line = f"  threshold: {THRESHOLD}"
        elif re.match(r"^  fitted_on: ", line):
            line = f"  fitted_on: {note}"
        lines.append(line)
    YAML.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, default=corpus_path())
    parser.add_argument("--dry-run", action="store_true", help="print the fit, do not write the YAML")
    parser.add_argument("--test", action="store_true", help="also score the test part (report only; never tune on it)")
    args = parser.parse_args()
    if args.csv is None or not args.csv.is_file():
        print("the corpus CSV is not found; give --csv or set COACH_POLITENESS_CSV", file=sys.stderr)
        return 1
    dev, test = quartile_task(load(args.csv))
    fitted = [s.name for s in strategies() if s.fit]
    x, offset, y, impolite_found = design(dev, fitted)
    cv = {lam: cross_validate(x, offset, y, impolite_found, lam) for lam in LAMBDAS}
    # the strongest penalty within TOLERANCE of the best CV accuracy: smaller weights for rare
    # strategies, which matters more for other communities than a third decimal on this one
    top = max(cv.values())
    best = max(lam for lam in LAMBDAS if cv[lam] >= top - TOLERANCE)
    weights, intercept = fit(x, offset, y, best)
    print(f"dev: {len(dev)} top/bottom-quartile requests ({int(y.sum())} polite)")
    print("5-fold CV accuracy on dev by L2 strength: " + ", ".join(f"{lam}: {cv[lam]:.3f}" for lam in LAMBDAS))
    print(f"chosen L2 strength {best}; intercept {intercept:+.3f}")
    for name, w, share in sorted(zip(fitted, weights, x.mean(axis=0), strict=True), key=lambda t: -t[1]):
        print(f"  {name:22s} {w:+.3f}   in {share:6.1%} of dev requests")
    dev_acc = accuracy(x, offset, y, weights, intercept, impolite_found)
    print(f"accuracy: dev (fitted on it) {dev_acc:.3f}, dev 5-fold CV {cv[best]:.3f}")
    if args.test:
        xt, offt, yt, impolite_t = design(test, fitted)
        test_acc = accuracy(xt, offt, yt, weights, intercept, impolite_t)
        print(f"test part: {len(test)} top/bottom-quartile requests ({int(yt.sum())} polite), accuracy {test_acc:.3f}")
    if not args.dry_run:
        note = (f"dev part of the Wikipedia requests, {len(dev)} top/bottom-quartile requests, "
                f"L2 {best}, dev CV accuracy {cv[best]:.3f}")
        write_yaml(dict(zip(fitted, weights.tolist(), strict=True)), float(intercept), note)
        print(f"wrote {YAML.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
