"""Small synthetic data sets with the shapes of the Theano tutorials' (MNIST, IMDB).

The tutorials load MNIST (28x28 images, 10 classes) and IMDB reviews; these
scripts run without downloads, on data drawn from a fixed teacher model so that
there is something to learn.
"""

from __future__ import annotations

import numpy


def mnist_like(n: int, seed: int = 0) -> tuple[numpy.ndarray, numpy.ndarray]:
    """``n`` images of 784 pixels in ``[0, 1]`` and their labels in ``0..9``: each class
    is a fixed random prototype (the same for every ``seed``) plus noise."""
    protos = numpy.random.RandomState(1234).uniform(0.0, 1.0, size=(10, 784)) > 0.7
    rng = numpy.random.RandomState(seed)
    y = rng.randint(0, 10, size=n)
    x = 0.8 * protos[y] + 0.3 * rng.uniform(0.0, 1.0, size=(n, 784))
    return numpy.clip(x, 0.0, 1.0), y


def imdb_like(n: int, n_words: int = 200, maxlen: int = 30, seed: int = 0
              ) -> tuple[list[list[int]], list[int]]:
    """``n`` "reviews" (lists of word ids) and their labels in ``{0, 1}``: positive
    reviews use the upper half of the vocabulary more often."""
    rng = numpy.random.RandomState(seed)
    seqs, labels = [], []
    for _ in range(n):
        label = int(rng.randint(0, 2))
        length = int(rng.randint(5, maxlen))
        bias = 0.9 if label else 0.1
        upper = rng.uniform(size=length) < bias
        words = numpy.where(upper, rng.randint(n_words // 2, n_words, size=length),
                            rng.randint(1, n_words // 2, size=length))
        seqs.append(words.tolist())
        labels.append(label)
    return seqs, labels
