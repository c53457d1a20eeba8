#!/usr/bin/env python3
"""Write data/explain_lexicon.tsv: the words of the tune corpus's logs, with
the weight each one gives each category in explain's guess (a multinomial
logistic regression over the words present in a log, each category weighing
the same in training, weights and the category's bias in hundredths). `explain` uses it only when no signature
matched (src/explain/guess.c).

    tools/lexicon.py --matched tests/corpus/tune.lines tests/corpus/tune > data/explain_lexicon.tsv
    tools/lexicon.py --matched tests/corpus/tune.lines --eval tests/corpus/tune   # five folds by thread
    tools/lexicon-quiet.sh build/cuda-doctor >quiet.txt
    tools/lexicon.py --matched tests/corpus/tune.lines --eval-hint quiet.txt tests/corpus/tune

(`make lexicon` writes both files.) With --matched FILE (a log's name, a tab,
the numbers of its lines a signature matched, comma-separated: what
tools/lexicon-lines.sh writes from explain --json), each log is learnt twice:
whole, and without those lines. The guess reads only logs no signature
matched, whose failure is worded in a way no pattern knows; the words around a
known message (the container runtime, the framework, the GPU, the paths) are
what such a log shares with the labelled ones, and the sentence a signature
already knows is not. In five folds by thread on the tune part, learning both
takes the first category from 47% to 56% right on the held-out logs without
their matched lines, for 1 point less on the whole logs.

A log's words are its words (a letter, then letters, digits and _+.-, ending
on a letter or digit; lower-cased; none with three digits in a row) and the
letter parts of each of them (cudaErrorUnsupportedPtxVersion: cuda, error,
unsupported, ptx, version; CUDNN_STATUS_ALLOC_FAILED: cudnn, status, alloc,
failed), 3 to 39 bytes, each counted once: a message never seen whole still
shares its parts with the ones that were.

Only tests/corpus/tune is ever read: the test parts stay unseen. Python's
standard library only; the logs, the words and the arithmetic run in a fixed
order and the output is sorted, so it is reproducible."""
import collections
import glob
import hashlib
import math
import os
import re
import sys

MIN_DF = 2          # logs a word must appear in
EPOCHS = 40         # passes of stochastic gradient descent over the logs
RATE = 0.3          # learning rate of the first pass; pass e uses RATE / (1 + e / 5)
L2 = 3e-4           # weight decay
KEEP = 10           # a word is kept when some category's weight reaches this (hundredths)
FOLDS = 5
TAIL = 256 << 10    # as src/explain/scan.h XS_TAIL: the guess reads the log's last 256 KiB
# the gate of a guess, written into the table as the rows (margin) and (strong)
# that src/explain/guess.c reads: the category must lead the next by MARGIN with
# a word present that weighs STRONG for it (hundredths; the same for every
# category)
MARGIN, STRONG = 25, 100
# a guess whose lead over the second category is below CLOSE names the second
# too, as its alternative (the row (close)), when a word present weighs STRONG
# for the second: in five folds by thread on the tune part, the first category
# is right for about 40% of such logs and the second for another 35%; from a
# lead of 100 to 200, 60% and 20%; above 300, 90% and 4%
CLOSE = 100
# a log in which no line looks like a failure (a hang, a log cut short, a
# listing) gets a hint at severity info when the lead reaches HINT (the row
# (hint)): in five folds by thread on the tune part, of the 754 held-out logs
# in which, without their matched lines, explain finds nothing, 235 reach 300
# and 88.1% of those are right; 80.8% from 200, 67.9% at the gate of a guess
# (tools/lexicon-quiet.sh, then --eval-hint)
HINT = 300
WORD = re.compile(rb"[A-Za-z][A-Za-z0-9_+.-]*[A-Za-z0-9]|[A-Za-z]")
DIGITS = re.compile(rb"[0-9]{3}")


def parts(tok):
    """The letter runs of a word, split where a lower-case letter meets an
    upper-case one and before the last capital of a run of capitals that
    starts a lower-case part (HTTPError: HTTP, Error)."""
    out, i, n = [], 0, len(tok)
    while i < n:
        c = tok[i:i + 1]
        if not c.isalpha():
            i += 1
            continue
        j = i
        if c.isupper():
            while j < n and tok[j:j + 1].isupper():
                j += 1
            if j < n and tok[j:j + 1].islower():
                if j - 1 > i:
                    out.append(tok[i:j - 1])
                i = j - 1
                j = i + 1
                while j < n and tok[j:j + 1].islower():
                    j += 1
        else:
            while j < n and tok[j:j + 1].islower():
                j += 1
        out.append(tok[i:j])
        i = j
    return out


def words(text):
    """The distinct words of a log, as src/explain/guess.c cuts them."""
    out = set()
    for tok in WORD.findall(text):
        w = tok.lower()
        if 2 < len(w) < 40 and not DIGITS.search(w):
            out.add(w)
        for p in parts(tok):
            if 2 < len(p) < 40:
                out.add(p.lower())
    return out


def load_matched(path):
    """The lines of each tune log a signature matched: {name: {line, ...}}."""
    out = {}
    for row in open(path, encoding="ascii"):
        name, _, lines = row.rstrip("\n").partition("\t")
        out[name] = {int(x) for x in lines.split(",") if x}
    return out


def unmatched(body, drop):
    """The log without the lines (numbered from 1) a signature matched."""
    return b"\n".join(x for i, x in enumerate(body.split(b"\n"), 1) if i not in drop)


def load(folder, matched=None, part="both"):
    """(thread, category, words) per log; with matched, per log its whole
    words and (part "both") the words of its unmatched lines, or (part
    "unmatched") only those."""
    logs = []
    for e in sorted(glob.glob(os.path.join(folder, "*.expect"))):
        meta = open(e, encoding="utf-8", errors="replace").read()
        cat = re.search(r"^category:\s*(\S+)", meta, re.M).group(1)
        th = re.search(r"^thread:\s*(\S+)", meta, re.M)
        raw = open(e[: -len(".expect")] + ".log", "rb").read()
        body = raw.replace(b"\x00", b"")[-TAIL:]  # UTF-16 logs read as their ASCII
        t = th.group(1) if th else e
        drop = (matched or {}).get(os.path.basename(e)[: -len(".expect")])
        if part == "both":
            logs.append((t, cat, sorted(words(body))))
        if drop and part in ("both", "unmatched"):
            logs.append((t, cat, sorted(words(unmatched(raw, drop).replace(b"\x00", b"")[-TAIL:]))))
        elif part == "unmatched":
            logs.append((t, cat, sorted(words(body))))
    return logs


def train(logs):
    df = collections.Counter()
    for _, _, ws in logs:
        df.update(ws)
    vocab = {w for w, k in df.items() if k >= MIN_DF}
    cats = sorted({c for _, c, _ in logs})
    index = {c: i for i, c in enumerate(cats)}
    k = len(cats)
    weight = {w: [0.0] * k for w in sorted(vocab)}
    bias = [0.0] * k
    # each category weighs as much as the others, however many logs it has
    share = collections.Counter(c for _, c, _ in logs)
    data = [(index[c], [weight[w] for w in ws if w in vocab], len(logs) / (k * share[c]))
            for _, c, ws in logs]
    for epoch in range(EPOCHS):
        rate = RATE / (1 + epoch / 5)
        for y, rows, cw in data:
            s = list(bias)
            for row in rows:
                for i in range(k):
                    s[i] += row[i]
            top = max(s)
            e = [math.exp(x - top) for x in s]
            z = sum(e)
            g = [cw * x / z for x in e]
            g[y] -= cw
            for i in range(k):
                bias[i] -= rate * g[i]
            for row in rows:
                for i in range(k):
                    row[i] -= rate * (g[i] + L2 * row[i])
    table = {}
    for w, row in weight.items():
        r = [round(x * 100) for x in row]
        if max(abs(x) for x in r) >= KEEP:
            table[w] = r
    return cats, [round(x * 100) for x in bias], table


def classify(model, ws, second=False):
    """The category, and whether guess.c would make the guess (with second:
    also the second category guess.c names as the alternative, or None)."""
    cats, prior, table = model
    s = list(prior)
    strong = [0] * len(cats)
    for w in ws:
        row = table.get(w)
        if row:
            for i, x in enumerate(row):
                s[i] += x
                strong[i] = max(strong[i], x)
    order = sorted(range(len(cats)), key=lambda i: (-s[i], i))
    first = order[0]
    made = s[first] - s[order[1]] >= MARGIN and strong[first] >= STRONG  # the (margin), (strong) rows
    if not second:
        return cats[first], made
    alt = order[1]
    close = made and s[first] - s[alt] < CLOSE and strong[alt] >= STRONG  # the (close) row
    return cats[first], made, cats[alt] if close else None


def evaluate(logs, held=None, what="logs"):
    """Five folds by thread: trained on four, judged on the fifth's held
    logs (default: the logs themselves)."""
    held = logs if held is None else held
    fold = {th: int(hashlib.sha256(th.encode()).hexdigest(), 16) % FOLDS for th, _, _ in logs}
    right = made = made_right = alts = alt_right = 0
    for f in range(FOLDS):
        model = train([x for x in logs if fold[x[0]] != f])
        for th, cat, ws in held:
            if fold[th] == f:
                got, m, alt = classify(model, ws, second=True)
                right += got == cat
                made += m
                made_right += m and got == cat
                alts += alt is not None
                alt_right += alt == cat
    print(f"{FOLDS} folds by thread, {what}: first category right for {right} of {len(held)} "
          f"({100.0 * right / max(1, len(held)):.1f}%); a guess made for {made}, "
          f"right for {made_right} ({100.0 * made_right / max(1, made):.1f}%); the second "
          f"category named for {alts}, right for {alt_right}")


def evaluate_hint(logs, quiet, folder, matched):
    """Five folds by thread, judged on the logs named in quiet without their
    matched lines (in which explain then finds nothing): how many a hint
    reaches at HINT, and at lower leads, and how many of those are right."""
    names = {x.strip() for x in open(quiet, encoding="ascii") if x.strip()}
    held = []
    for e in sorted(glob.glob(os.path.join(folder, "*.expect"))):
        name = os.path.basename(e)[: -len(".expect")]
        if name not in names:
            continue
        meta = open(e, encoding="utf-8", errors="replace").read()
        cat = re.search(r"^category:\s*(\S+)", meta, re.M).group(1)
        th = re.search(r"^thread:\s*(\S+)", meta, re.M)
        raw = open(e[: -len(".expect")] + ".log", "rb").read()
        body = unmatched(raw, matched.get(name, set())).replace(b"\x00", b"")[-TAIL:]
        held.append((th.group(1) if th else e, cat, sorted(words(body))))
    fold = {th: int(hashlib.sha256(th.encode()).hexdigest(), 16) % FOLDS for th, _, _ in logs}
    leads = sorted({MARGIN, 100, 200, HINT, 2 * HINT})
    made = collections.Counter()
    right = collections.Counter()
    for f in range(FOLDS):
        cats, prior, table = train([x for x in logs if fold[x[0]] != f])
        for th, cat, ws in held:
            if fold.get(th, int(hashlib.sha256(th.encode()).hexdigest(), 16) % FOLDS) != f:
                continue
            s = list(prior)
            strong = [0] * len(cats)
            for w in ws:
                for i, x in enumerate(table.get(w, ())):
                    s[i] += x
                    strong[i] = max(strong[i], x)
            order = sorted(range(len(cats)), key=lambda i: (-s[i], i))
            lead = s[order[0]] - s[order[1]]
            for m in leads:
                if lead >= m and strong[order[0]] >= STRONG:
                    made[m] += 1
                    right[m] += cats[order[0]] == cat
    print(f"{FOLDS} folds by thread, {len(held)} logs in which nothing looks like a failure "
          f"once their matched lines are gone:")
    for m in leads:
        print(f"  lead >= {m}{' (the hint)' if m == HINT else ''}: a hint for {made[m]}, "
              f"right for {right[m]} ({100.0 * right[m] / max(1, made[m]):.1f}%)")


def main(argv):
    matched = None
    if len(argv) >= 3 and argv[1] == "--matched":
        matched = load_matched(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) == 4 and argv[1] == "--eval-hint" and matched is not None:
        evaluate_hint(load(argv[3], matched), argv[2], argv[3], matched)
        return 0
    if len(argv) == 3 and argv[1] == "--eval":
        logs = load(argv[2], matched)
        evaluate(logs, load(argv[2], None), "whole logs")
        if matched:
            evaluate(logs, load(argv[2], matched, "unmatched"), "logs without their matched lines")
        return 0
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    cats, prior, table = train(load(argv[1], matched))
    out = sys.stdout
    out.write("# The words of explain's guess when no signature matched (docs/explain.md,\n")
    out.write("# \"A guess from the words\"): per category, the weight a log containing the\n")
    out.write("# word gives it (multinomial logistic regression), in hundredths. Generated by\n")
    out.write("# tools/lexicon.py from tests/corpus/tune (the labelled logs of the tune part);\n")
    out.write("# the row `(prior)` holds the categories' biases; `(margin)` and `(strong)` the\n")
    out.write("# gate: a guess of a category needs that lead over the next and a word present\n")
    out.write("# weighing that much for it; `(close)`: below that lead, the second category is\n")
    out.write("# named too, as an alternative; `(hint)`: the lead of a hint for a log in which\n")
    out.write("# no line looks like a failure. Do not edit: regenerate.\n")
    out.write("word\t" + "\t".join(cats) + "\n")
    out.write("(prior)\t" + "\t".join(str(x) for x in prior) + "\n")
    out.write("(margin)\t" + "\t".join(str(MARGIN) for _ in cats) + "\n")
    out.write("(strong)\t" + "\t".join(str(STRONG) for _ in cats) + "\n")
    out.write("(close)\t" + "\t".join(str(CLOSE) for _ in cats) + "\n")
    out.write("(hint)\t" + "\t".join(str(HINT) for _ in cats) + "\n")
    for w in sorted(table):
        out.write(w.decode("ascii") + "\t" + "\t".join(str(x) for x in table[w]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
