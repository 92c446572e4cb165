"""Hybrid (Hamiltonian) Monte Carlo: the Theano tutorial's ``hmc.py``.

Written against the Theano API (leapfrog steps in ``theano.scan``, a
``RandomStreams`` for momenta and the Metropolis test, shared-variable updates that
adapt the step size); the only change is the import (``theano`` -> ``theon``).  The
demo samples a correlated 5-d Gaussian, as the tutorial's test does.
"""

from __future__ import annotations

import numpy

import theon
import theon.tensor as TT
from theon import function, shared


def sharedX(X, name):
    return shared(numpy.asarray(X, dtype=theon.config.floatX), name=name)


def kinetic_energy(vel):
    return 0.5 * (vel ** 2).sum(axis=1)


def hamiltonian(pos, vel, energy_fn):
    return energy_fn(pos) + kinetic_energy(vel)


def metropolis_hastings_accept(energy_prev, energy_next, s_rng):
    ediff = energy_prev - energy_next
    return (TT.exp(ediff) - s_rng.uniform(size=energy_prev.shape)) >= 0


def simulate_dynamics(initial_pos, initial_vel, stepsize, n_steps, energy_fn):
    def leapfrog(pos, vel, step):
        dE_dpos = TT.grad(energy_fn(pos).sum(), pos)
        new_vel = vel - step * dE_dpos
        new_pos = pos + step * new_vel
        return [new_pos, new_vel], {}

    initial_energy = energy_fn(initial_pos)
    dE_dpos = TT.grad(initial_energy.sum(), initial_pos)
    vel_half_step = initial_vel - 0.5 * stepsize * dE_dpos
    pos_full_step = initial_pos + stepsize * vel_half_step

    (all_pos, all_vel), scan_updates = theon.scan(
        leapfrog,
        outputs_info=[dict(initial=pos_full_step), dict(initial=vel_half_step)],
        non_sequences=[stepsize],
        n_steps=n_steps - 1,
    )
    final_pos = all_pos[-1]
    final_vel = all_vel[-1]
    assert not scan_updates
    energy = energy_fn(final_pos)
    final_vel = final_vel - 0.5 * stepsize * TT.grad(energy.sum(), final_pos)
    return final_pos, final_vel


def hmc_move(s_rng, positions, energy_fn, stepsize, n_steps):
    initial_vel = s_rng.normal(size=positions.shape)
    final_pos, final_vel = simulate_dynamics(initial_pos=positions, initial_vel=initial_vel,
                                             stepsize=stepsize, n_steps=n_steps,
                                             energy_fn=energy_fn)
    accept = metropolis_hastings_accept(
        energy_prev=hamiltonian(positions, initial_vel, energy_fn),
        energy_next=hamiltonian(final_pos, final_vel, energy_fn),
        s_rng=s_rng,
    )
    return accept, final_pos


def hmc_updates(positions, stepsize, avg_acceptance_rate, final_pos, accept,
                target_acceptance_rate, stepsize_inc, stepsize_dec, stepsize_min,
                stepsize_max, avg_acceptance_slowness):
    accept_matrix = accept.dimshuffle(0, *(("x",) * (final_pos.ndim - 1)))
    new_positions = TT.switch(accept_matrix, final_pos, positions)
    _new_stepsize = TT.switch(avg_acceptance_rate > target_acceptance_rate,
                              stepsize * stepsize_inc, stepsize * stepsize_dec)
    new_stepsize = TT.clip(_new_stepsize, stepsize_min, stepsize_max)
    mean_dtype = theon.scalar.upcast(accept.dtype, avg_acceptance_rate.dtype)
    new_acceptance_rate = TT.add(
        avg_acceptance_slowness * avg_acceptance_rate,
        (1.0 - avg_acceptance_slowness) * accept.mean(dtype=mean_dtype),
    )
    return [(positions, new_positions), (stepsize, new_stepsize),
            (avg_acceptance_rate, new_acceptance_rate)]


class HMC_sampler(object):
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    @classmethod
    def new_from_shared_positions(cls, shared_positions, energy_fn, initial_stepsize=0.01,
                                  target_acceptance_rate=0.9, n_steps=20, stepsize_dec=0.98,
                                  stepsize_min=0.001, stepsize_max=0.25, stepsize_inc=1.02,
                                  avg_acceptance_slowness=0.9, seed=12345):
        stepsize = sharedX(initial_stepsize, "hmc_stepsize")
        avg_acceptance_rate = sharedX(target_acceptance_rate, "avg_acceptance_rate")
        s_rng = TT.shared_randomstreams.RandomStreams(seed)
        accept, final_pos = hmc_move(s_rng, shared_positions, energy_fn, stepsize, n_steps)
        simulate_updates = hmc_updates(
            shared_positions, stepsize, avg_acceptance_rate, final_pos=final_pos,
            accept=accept, stepsize_min=stepsize_min, stepsize_max=stepsize_max,
            stepsize_inc=stepsize_inc, stepsize_dec=stepsize_dec,
            target_acceptance_rate=target_acceptance_rate,
            avg_acceptance_slowness=avg_acceptance_slowness,
        )
        simulate = function([], [], updates=simulate_updates)
        return cls(positions=shared_positions, stepsize=stepsize,
                   stepsize_min=stepsize_min, stepsize_max=stepsize_max,
                   avg_acceptance_rate=avg_acceptance_rate,
                   target_acceptance_rate=target_acceptance_rate, s_rng=s_rng,
                   _updates=simulate_updates, simulate=simulate)

    def draw(self, **kwargs):
        self.simulate()
        return self.positions.get_value(borrow=False)


def sampler_on_nd_gaussian(sampler_cls=HMC_sampler, burnin=200, n_samples=500, dim=5):
    batchsize = 3
    rng = numpy.random.RandomState(123)
    mu = numpy.array(rng.rand(dim) * 10, dtype=theon.config.floatX)
    cov = numpy.array(rng.rand(dim, dim), dtype=theon.config.floatX)
    cov = (cov + cov.T) / 2.0
    cov[numpy.arange(dim), numpy.arange(dim)] = 1.0
    cov_inv = numpy.linalg.inv(cov)

    def gaussian_energy(x):
        return 0.5 * (TT.dot((x - mu), cov_inv) * (x - mu)).sum(axis=1)

    position = rng.randn(batchsize, dim).astype(theon.config.floatX)
    position = shared(position)
    sampler = sampler_cls.new_from_shared_positions(position, gaussian_energy,
                                                    initial_stepsize=1e-3, stepsize_max=0.5)
    _ = numpy.asarray([sampler.draw() for r in range(burnin)])
    samples = numpy.asarray([sampler.draw() for r in range(n_samples)])
    acceptance = float(sampler.avg_acceptance_rate.get_value())
    samples = samples.T.reshape(dim, -1).T
    return {"mu": mu, "cov": cov, "samples": samples, "acceptance_rate": acceptance,
            "stepsize": float(sampler.stepsize.get_value())}


if __name__ == "__main__":
    res = sampler_on_nd_gaussian()
    print("target mean:   ", res["mu"])
    print("empirical mean:", res["samples"].mean(axis=0))
    print("acceptance rate: %.3f, final stepsize %.3f" % (res["acceptance_rate"],
                                                          res["stepsize"]))
