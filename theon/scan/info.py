"""The layout of a :class:`~theon.scan.op.Scan`: :class:`ScanInfo`.

theon counts a loop's inputs and outputs by kind: sequences, recurrent states (each
with its taps, in any order), outputs that are not fed back ("nit-sot"),
non-sequences, and carried non-tensor states.  PyTensor splits the recurrent states
into "mit-sot" (any taps but ``[-1]``) and "sit-sot" (tap ``[-1]``), has a third kind
("mit-mot", only in its gradients, which theon computes otherwise) and calls the
carried states "untraced sit-sot" (formerly "shared outputs").  :class:`ScanInfo` reads
its fields under PyTensor's names too, counted that way (``n_mit_sot``,
``n_sit_sot``, ``n_untraced_sit_sot``, ...), for programs that read them; the order of
the states in a node stays theon's (:class:`~theon.scan.args.ScanArgs` regroups them
PyTensor's way).

>>> info = ScanInfo(n_seqs=1, state_taps=((-1,), (-2, -1)), n_nit=1, n_nonseqs=2)
>>> info.n_sit_sot, info.n_mit_sot, info.mit_sot_in_slices, info.n_nit_sot, info.n_non_seqs
(1, 1, ((-2, -1),), 1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ScanInfo", "is_sit_sot"]


def is_sit_sot(taps: tuple[int, ...]) -> bool:
    """Whether a state with these taps is what PyTensor calls a sit-sot (tap ``[-1]``)."""
    return taps == (-1,)


@dataclass(frozen=True)
class ScanInfo:
    """The structure of a :class:`Scan`: how many inputs and outputs of each kind.

    Attributes
    ----------
    n_seqs
        Number of sequence inputs (one per sequence tap).
    state_taps
        Per recurrent state, its taps (negative, increasing).
    n_nit
        Number of outputs that are not fed back.
    n_nonseqs
        Number of non-sequence inputs.
    as_while
        Whether the body's last output is the stopping condition.
    store_last
        Per state: keep only its last ``L_j`` rows (the output then has ``L_j`` rows).
    truncate_gradient
        Backpropagate through at most this many steps (``-1``: all).
    name
        A name for messages and printing.
    n_carried
        Number of carried (non-tensor, unstacked) states, such as random generators.
    """

    n_seqs: int = 0
    state_taps: tuple[tuple[int, ...], ...] = ()
    n_nit: int = 0
    n_nonseqs: int = 0
    as_while: bool = False
    store_last: tuple[bool, ...] = ()
    truncate_gradient: int = -1
    name: str | None = None
    n_carried: int = 0
    store_last_default: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.store_last) != len(self.state_taps):
            object.__setattr__(self, "store_last", (self.store_last_default,) * self.n_states)
        for taps in self.state_taps:
            if not taps or any(k >= 0 for k in taps) or list(taps) != sorted(set(taps)):
                raise ValueError(
                    f"scan: the taps of a recurrent output must be distinct negative integers, "
                    f"got {list(taps)}"
                )

    @property
    def n_states(self) -> int:
        return len(self.state_taps)

    @property
    def lags(self) -> tuple[int, ...]:
        """``L_j = -min(taps_j)``: the initial rows each state needs."""
        return tuple(-t[0] for t in self.state_taps)

    @property
    def n_state_taps(self) -> int:
        return sum(len(t) for t in self.state_taps)

    @property
    def n_inner_inputs(self) -> int:
        return self.n_seqs + self.n_state_taps + self.n_nonseqs + self.n_carried

    @property
    def n_inner_outputs(self) -> int:
        return self.n_states + self.n_nit + self.n_carried + int(self.as_while)

    @property
    def n_outer_inputs(self) -> int:
        return 1 + self.n_seqs + self.n_states + self.n_nonseqs + self.n_carried

    @property
    def carried_outputs(self) -> slice:
        """The positions of the carried states in the outer (and inner) outputs."""
        a = self.n_states + self.n_nit
        return slice(a, a + self.n_carried)

    @property
    def carried_inputs(self) -> slice:
        """The positions of the carried states in the outer inputs."""
        b = 1 + self.n_seqs + self.n_states + self.n_nonseqs
        return slice(b, b + self.n_carried)

    def outer_slices(self) -> tuple[slice, slice, slice]:
        """The positions of the sequences, state buffers and non-sequences in the inputs."""
        a = 1 + self.n_seqs
        b = a + self.n_states
        return slice(1, a), slice(a, b), slice(b, b + self.n_nonseqs)


    # PyTensor's names -----------------------------------------------------------------
    @property
    def n_mit_mot(self) -> int:
        """PyTensor's multiple-input multiple-output states: none in theon (its gradients
        are loops of the other kinds)."""
        return 0

    @property
    def n_mit_mot_outs(self) -> int:
        return 0

    @property
    def mit_mot_in_slices(self) -> tuple[tuple[int, ...], ...]:
        return ()

    @property
    def mit_mot_out_slices(self) -> tuple[tuple[int, ...], ...]:
        return ()

    @property
    def mit_sot_in_slices(self) -> tuple[tuple[int, ...], ...]:
        """The taps of each state that reads other taps than ``[-1]``, in state order."""
        return tuple(t for t in self.state_taps if not is_sit_sot(t))

    @property
    def sit_sot_in_slices(self) -> tuple[tuple[int, ...], ...]:
        """``(-1,)`` for each state that reads only its previous value."""
        return tuple(t for t in self.state_taps if is_sit_sot(t))

    @property
    def n_mit_sot(self) -> int:
        return len(self.mit_sot_in_slices)

    @property
    def n_sit_sot(self) -> int:
        return len(self.sit_sot_in_slices)

    @property
    def tap_array(self) -> tuple[tuple[int, ...], ...]:
        """The taps of every state, in the order of the node's states (PyTensor lists its
        mit-sots before its sit-sots; theon's node may interleave them)."""
        return self.state_taps

    @property
    def n_nit_sot(self) -> int:
        return self.n_nit

    @property
    def n_untraced_sit_sot(self) -> int:
        """The carried (unstacked) states: PyTensor's untraced sit-sots."""
        return self.n_carried

    @property
    def n_shared_outs(self) -> int:
        """PyTensor's older name of :attr:`n_untraced_sit_sot`."""
        return self.n_carried

    @property
    def n_non_seqs(self) -> int:
        return self.n_nonseqs
