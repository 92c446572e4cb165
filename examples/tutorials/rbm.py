"""A restricted Boltzmann machine trained by contrastive divergence (CD-k, or PCD-k):
the Theano tutorial's ``rbm.py``.

Written against the Theano API (Gibbs sampling in ``theano.scan`` with
``RandomStreams`` draws inside the step); the only change is the import (``theano``
-> ``theon``) and the synthetic MNIST-shaped data.
"""

from __future__ import annotations

import numpy
from _data import mnist_like

import theon
import theon.tensor as T
from theon.tensor.shared_randomstreams import RandomStreams


class RBM(object):
    def __init__(self, input=None, n_visible=784, n_hidden=500, W=None, hbias=None,
                 vbias=None, numpy_rng=None, theano_rng=None):
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        if numpy_rng is None:
            numpy_rng = numpy.random.RandomState(1234)
        if theano_rng is None:
            theano_rng = RandomStreams(numpy_rng.randint(2 ** 30))
        if W is None:
            initial_W = numpy.asarray(
                numpy_rng.uniform(low=-4 * numpy.sqrt(6.0 / (n_hidden + n_visible)),
                                  high=4 * numpy.sqrt(6.0 / (n_hidden + n_visible)),
                                  size=(n_visible, n_hidden)),
                dtype=theon.config.floatX,
            )
            W = theon.shared(value=initial_W, name="W", borrow=True)
        if hbias is None:
            hbias = theon.shared(value=numpy.zeros(n_hidden, dtype=theon.config.floatX),
                                 name="hbias", borrow=True)
        if vbias is None:
            vbias = theon.shared(value=numpy.zeros(n_visible, dtype=theon.config.floatX),
                                 name="vbias", borrow=True)
        self.input = input
        if not input:
            self.input = T.matrix("input")
        self.W = W
        self.hbias = hbias
        self.vbias = vbias
        self.theano_rng = theano_rng
        self.params = [self.W, self.hbias, self.vbias]

    def free_energy(self, v_sample):
        wx_b = T.dot(v_sample, self.W) + self.hbias
        vbias_term = T.dot(v_sample, self.vbias)
        hidden_term = T.sum(T.log(1 + T.exp(wx_b)), axis=1)
        return -hidden_term - vbias_term

    def propup(self, vis):
        pre_sigmoid_activation = T.dot(vis, self.W) + self.hbias
        return [pre_sigmoid_activation, T.nnet.sigmoid(pre_sigmoid_activation)]

    def sample_h_given_v(self, v0_sample):
        pre_sigmoid_h1, h1_mean = self.propup(v0_sample)
        h1_sample = self.theano_rng.binomial(size=h1_mean.shape, n=1, p=h1_mean,
                                             dtype=theon.config.floatX)
        return [pre_sigmoid_h1, h1_mean, h1_sample]

    def propdown(self, hid):
        pre_sigmoid_activation = T.dot(hid, self.W.T) + self.vbias
        return [pre_sigmoid_activation, T.nnet.sigmoid(pre_sigmoid_activation)]

    def sample_v_given_h(self, h0_sample):
        pre_sigmoid_v1, v1_mean = self.propdown(h0_sample)
        v1_sample = self.theano_rng.binomial(size=v1_mean.shape, n=1, p=v1_mean,
                                             dtype=theon.config.floatX)
        return [pre_sigmoid_v1, v1_mean, v1_sample]

    def gibbs_hvh(self, h0_sample):
        pre_sigmoid_v1, v1_mean, v1_sample = self.sample_v_given_h(h0_sample)
        pre_sigmoid_h1, h1_mean, h1_sample = self.sample_h_given_v(v1_sample)
        return [pre_sigmoid_v1, v1_mean, v1_sample, pre_sigmoid_h1, h1_mean, h1_sample]

    def gibbs_vhv(self, v0_sample):
        pre_sigmoid_h1, h1_mean, h1_sample = self.sample_h_given_v(v0_sample)
        pre_sigmoid_v1, v1_mean, v1_sample = self.sample_v_given_h(h1_sample)
        return [pre_sigmoid_h1, h1_mean, h1_sample, pre_sigmoid_v1, v1_mean, v1_sample]

    def get_cost_updates(self, lr=0.1, persistent=None, k=1):
        pre_sigmoid_ph, ph_mean, ph_sample = self.sample_h_given_v(self.input)
        if persistent is None:
            chain_start = ph_sample
        else:
            chain_start = persistent
        (
            [pre_sigmoid_nvs, nv_means, nv_samples, pre_sigmoid_nhs, nh_means, nh_samples],
            updates,
        ) = theon.scan(
            self.gibbs_hvh,
            outputs_info=[None, None, None, None, None, chain_start],
            n_steps=k,
            name="gibbs_hvh",
        )
        chain_end = nv_samples[-1]
        cost = T.mean(self.free_energy(self.input)) - T.mean(self.free_energy(chain_end))
        gparams = T.grad(cost, self.params, consider_constant=[chain_end])
        for gparam, param in zip(gparams, self.params):
            updates[param] = param - gparam * T.cast(lr, dtype=theon.config.floatX)
        if persistent:
            updates[persistent] = nh_samples[-1]
            monitoring_cost = self.get_pseudo_likelihood_cost(updates)
        else:
            monitoring_cost = self.get_reconstruction_cost(updates, pre_sigmoid_nvs[-1])
        return monitoring_cost, updates

    def get_pseudo_likelihood_cost(self, updates):
        bit_i_idx = theon.shared(value=0, name="bit_i_idx")
        xi = T.round(self.input)
        fe_xi = self.free_energy(xi)
        xi_flip = T.set_subtensor(xi[:, bit_i_idx], 1 - xi[:, bit_i_idx])
        fe_xi_flip = self.free_energy(xi_flip)
        cost = T.mean(self.n_visible * T.log(T.nnet.sigmoid(fe_xi_flip - fe_xi)))
        updates[bit_i_idx] = (bit_i_idx + 1) % self.n_visible
        return cost

    def get_reconstruction_cost(self, updates, pre_sigmoid_nv):
        cross_entropy = T.mean(
            T.sum(self.input * T.log(T.nnet.sigmoid(pre_sigmoid_nv))
                  + (1 - self.input) * T.log(1 - T.nnet.sigmoid(pre_sigmoid_nv)), axis=1)
        )
        return cross_entropy


def test_rbm(learning_rate=0.1, training_epochs=5, batch_size=20, n_train=200, n_hidden=50,
             k=2, persistent_chain=False):
    data, _ = mnist_like(n_train, seed=4)
    train_set_x = theon.shared(numpy.asarray(data > 0.5, dtype=theon.config.floatX),
                               borrow=True)
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    index = T.lscalar()
    x = T.matrix("x")
    rng = numpy.random.RandomState(123)
    theano_rng = RandomStreams(rng.randint(2 ** 30))
    persistent = None
    if persistent_chain:
        persistent = theon.shared(numpy.zeros((batch_size, n_hidden),
                                              dtype=theon.config.floatX), borrow=True)
    rbm = RBM(input=x, n_visible=28 * 28, n_hidden=n_hidden, numpy_rng=rng,
              theano_rng=theano_rng)
    cost, updates = rbm.get_cost_updates(lr=learning_rate, persistent=persistent, k=k)
    train_rbm = theon.function(
        [index], cost, updates=updates,
        givens={x: train_set_x[index * batch_size: (index + 1) * batch_size]},
        name="train_rbm",
    )
    epoch_costs = []
    for _epoch in range(training_epochs):
        epoch_costs.append(float(numpy.mean([train_rbm(i) for i in range(n_train_batches)])))
    return {"costs": epoch_costs}


if __name__ == "__main__":
    print("reconstruction cross-entropy per epoch:",
          ["%.2f" % c for c in test_rbm()["costs"]])
