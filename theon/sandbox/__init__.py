"""Theano's ``theano.sandbox`` import paths kept for old code (``rng_mrg``)."""
