"""An LSTM sentiment classifier: the Theano tutorial's ``lstm.py``.

Written against the Theano API (an ``OrderedDict`` of parameters, the LSTM layer in
``theano.scan`` over a masked minibatch, dropout with ``MRG_RandomStreams``, and the
adadelta optimizer as two compiled functions); the only change is the import
(``theano`` -> ``theon``) and small synthetic IMDB-shaped data (``_data.py``).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy
from _data import imdb_like

import theon
from theon import config, tensor
from theon.sandbox.rng_mrg import MRG_RandomStreams as RandomStreams

SEED = 123
numpy.random.seed(SEED)


def numpy_floatX(data):
    return numpy.asarray(data, dtype=config.floatX)


def get_minibatches_idx(n, minibatch_size, shuffle=False):
    idx_list = numpy.arange(n, dtype="int32")
    if shuffle:
        numpy.random.shuffle(idx_list)
    minibatches = []
    minibatch_start = 0
    for i in range(n // minibatch_size):
        minibatches.append(idx_list[minibatch_start:minibatch_start + minibatch_size])
        minibatch_start += minibatch_size
    if minibatch_start != n:
        minibatches.append(idx_list[minibatch_start:])
    return zip(range(len(minibatches)), minibatches)


def zipp(params, tparams):
    for kk, vv in params.items():
        tparams[kk].set_value(vv)


def dropout_layer(state_before, use_noise, trng):
    proj = tensor.switch(
        use_noise,
        (state_before * trng.binomial(state_before.shape, p=0.5, n=1,
                                      dtype=state_before.dtype)),
        state_before * 0.5,
    )
    return proj


def _p(pp, name):
    return "%s_%s" % (pp, name)


def init_params(options):
    params = OrderedDict()
    randn = numpy.random.rand(options["n_words"], options["dim_proj"])
    params["Wemb"] = (0.01 * randn).astype(config.floatX)
    params = param_init_lstm(options, params, prefix="lstm")
    params["U"] = 0.01 * numpy.random.randn(options["dim_proj"], options["ydim"]).astype(
        config.floatX)
    params["b"] = numpy.zeros((options["ydim"],)).astype(config.floatX)
    return params


def init_tparams(params):
    tparams = OrderedDict()
    for kk, pp in params.items():
        tparams[kk] = theon.shared(params[kk], name=kk)
    return tparams


def ortho_weight(ndim):
    W = numpy.random.randn(ndim, ndim)
    u, s, v = numpy.linalg.svd(W)
    return u.astype(config.floatX)


def param_init_lstm(options, params, prefix="lstm"):
    W = numpy.concatenate([ortho_weight(options["dim_proj"]),
                           ortho_weight(options["dim_proj"]),
                           ortho_weight(options["dim_proj"]),
                           ortho_weight(options["dim_proj"])], axis=1)
    params[_p(prefix, "W")] = W
    U = numpy.concatenate([ortho_weight(options["dim_proj"]),
                           ortho_weight(options["dim_proj"]),
                           ortho_weight(options["dim_proj"]),
                           ortho_weight(options["dim_proj"])], axis=1)
    params[_p(prefix, "U")] = U
    b = numpy.zeros((4 * options["dim_proj"],))
    params[_p(prefix, "b")] = b.astype(config.floatX)
    return params


def lstm_layer(tparams, state_below, options, prefix="lstm", mask=None):
    nsteps = state_below.shape[0]
    if state_below.ndim == 3:
        n_samples = state_below.shape[1]
    else:
        n_samples = 1
    assert mask is not None

    def _slice(_x, n, dim):
        if _x.ndim == 3:
            return _x[:, :, n * dim:(n + 1) * dim]
        return _x[:, n * dim:(n + 1) * dim]

    def _step(m_, x_, h_, c_):
        preact = tensor.dot(h_, tparams[_p(prefix, "U")])
        preact += x_
        i = tensor.nnet.sigmoid(_slice(preact, 0, options["dim_proj"]))
        f = tensor.nnet.sigmoid(_slice(preact, 1, options["dim_proj"]))
        o = tensor.nnet.sigmoid(_slice(preact, 2, options["dim_proj"]))
        c = tensor.tanh(_slice(preact, 3, options["dim_proj"]))
        c = f * c_ + i * c
        c = m_[:, None] * c + (1.0 - m_)[:, None] * c_
        h = o * tensor.tanh(c)
        h = m_[:, None] * h + (1.0 - m_)[:, None] * h_
        return h, c

    state_below = (tensor.dot(state_below, tparams[_p(prefix, "W")])
                   + tparams[_p(prefix, "b")])
    dim_proj = options["dim_proj"]
    rval, updates = theon.scan(
        _step,
        sequences=[mask, state_below],
        outputs_info=[tensor.alloc(numpy_floatX(0.0), n_samples, dim_proj),
                      tensor.alloc(numpy_floatX(0.0), n_samples, dim_proj)],
        name=_p(prefix, "_layers"),
        n_steps=nsteps,
    )
    return rval[0]


def sgd(lr, tparams, grads, x, mask, y, cost):
    gshared = [theon.shared(p.get_value() * 0.0, name="%s_grad" % k)
               for k, p in tparams.items()]
    gsup = [(gs, g) for gs, g in zip(gshared, grads)]
    f_grad_shared = theon.function([x, mask, y], cost, updates=gsup, name="sgd_f_grad_shared")
    pup = [(p, p - lr * g) for p, g in zip(tparams.values(), gshared)]
    f_update = theon.function([lr], [], updates=pup, name="sgd_f_update")
    return f_grad_shared, f_update


def adadelta(lr, tparams, grads, x, mask, y, cost):
    zipped_grads = [theon.shared(p.get_value() * numpy_floatX(0.0), name="%s_grad" % k)
                    for k, p in tparams.items()]
    running_up2 = [theon.shared(p.get_value() * numpy_floatX(0.0), name="%s_rup2" % k)
                   for k, p in tparams.items()]
    running_grads2 = [theon.shared(p.get_value() * numpy_floatX(0.0), name="%s_rgrad2" % k)
                      for k, p in tparams.items()]
    zgup = [(zg, g) for zg, g in zip(zipped_grads, grads)]
    rg2up = [(rg2, 0.95 * rg2 + 0.05 * (g ** 2)) for rg2, g in zip(running_grads2, grads)]
    f_grad_shared = theon.function([x, mask, y], cost, updates=zgup + rg2up,
                                   name="adadelta_f_grad_shared")
    updir = [-tensor.sqrt(ru2 + 1e-6) / tensor.sqrt(rg2 + 1e-6) * zg
             for zg, ru2, rg2 in zip(zipped_grads, running_up2, running_grads2)]
    ru2up = [(ru2, 0.95 * ru2 + 0.05 * (ud ** 2)) for ru2, ud in zip(running_up2, updir)]
    param_up = [(p, p + ud) for p, ud in zip(tparams.values(), updir)]
    f_update = theon.function([lr], [], updates=ru2up + param_up, on_unused_input="ignore",
                              name="adadelta_f_update")
    return f_grad_shared, f_update


def build_model(tparams, options):
    trng = RandomStreams(SEED)
    use_noise = theon.shared(numpy_floatX(0.0))
    x = tensor.matrix("x", dtype="int64")
    mask = tensor.matrix("mask", dtype=config.floatX)
    y = tensor.vector("y", dtype="int64")
    n_timesteps = x.shape[0]
    n_samples = x.shape[1]
    emb = tparams["Wemb"][x.flatten()].reshape([n_timesteps, n_samples, options["dim_proj"]])
    proj = lstm_layer(tparams, emb, options, prefix="lstm", mask=mask)
    proj = (proj * mask[:, :, None]).sum(axis=0)
    proj = proj / mask.sum(axis=0)[:, None]
    if options["use_dropout"]:
        proj = dropout_layer(proj, use_noise, trng)
    pred = tensor.nnet.softmax(tensor.dot(proj, tparams["U"]) + tparams["b"])
    f_pred_prob = theon.function([x, mask], pred, name="f_pred_prob")
    f_pred = theon.function([x, mask], pred.argmax(axis=1), name="f_pred")
    off = 1e-8
    if pred.dtype == "float16":
        off = 1e-6
    cost = -tensor.log(pred[tensor.arange(n_samples), y] + off).mean()
    return use_noise, x, mask, y, f_pred_prob, f_pred, cost


def prepare_data(seqs, labels, maxlen=None):
    lengths = [len(s) for s in seqs]
    n_samples = len(seqs)
    maxlen = numpy.max(lengths)
    x = numpy.zeros((maxlen, n_samples)).astype("int64")
    x_mask = numpy.zeros((maxlen, n_samples)).astype(config.floatX)
    for idx, s in enumerate(seqs):
        x[:lengths[idx], idx] = s
        x_mask[:lengths[idx], idx] = 1.0
    return x, x_mask, labels


def train_lstm(dim_proj=32, max_epochs=4, n_words=200, lrate=0.0001, optimizer=adadelta,
               batch_size=16, use_dropout=True, n_train=160):
    model_options = dict(dim_proj=dim_proj, n_words=n_words, ydim=2, use_dropout=use_dropout)
    train = imdb_like(n_train, n_words=n_words, seed=5)
    params = init_params(model_options)
    tparams = init_tparams(params)
    (use_noise, x, mask, y, f_pred_prob, f_pred, cost) = build_model(tparams, model_options)
    grads = tensor.grad(cost, wrt=list(tparams.values()))
    lr = tensor.scalar(name="lr")
    f_grad_shared, f_update = optimizer(lr, tparams, grads, x, mask, y, cost)
    epoch_costs = []
    for _eidx in range(max_epochs):
        kf = get_minibatches_idx(len(train[0]), batch_size, shuffle=True)
        costs = []
        for _, train_index in kf:
            use_noise.set_value(1.0)
            y_b = [train[1][t] for t in train_index]
            x_b = [train[0][t] for t in train_index]
            x_b, mask_b, y_b = prepare_data(x_b, y_b)
            costs.append(f_grad_shared(x_b, mask_b, y_b))
            f_update(lrate)
        epoch_costs.append(float(numpy.mean(costs)))
    use_noise.set_value(0.0)
    x_all, mask_all, y_all = prepare_data(train[0], train[1])
    train_err = float(numpy.mean(f_pred(x_all, mask_all) != numpy.asarray(y_all)))
    return {"costs": epoch_costs, "train_error": train_err}


if __name__ == "__main__":
    res = train_lstm(optimizer=sgd, lrate=2.0, max_epochs=15, n_train=320)
    print("epoch costs:", ["%.4f" % c for c in res["costs"]])
    print("train error: %.2f" % res["train_error"])
