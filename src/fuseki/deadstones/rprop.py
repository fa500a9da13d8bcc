"""The RPROP family of the dead-stone thesis: RPROP (with weight backtracking), iRPROP+ and SARPROP.

Guisov (2006, §1.4.2-1.4.4, pp. 22-26) trains its block classifiers full-batch
("by epochs": every training vector is seen, then the weights change once)
with three sign-based methods. Each weight ``w`` has its own step size ``Δ``;
only the *sign* of ``g = dE/dw`` is used:

- the same sign as the previous epoch: ``Δ ← min(Δmax, Δ·η+)`` and
  ``w ← w - sign(g)·Δ``;
- a flipped sign: ``Δ ← max(Δmin, Δ·η-)``, the stored gradient is set to 0
  (so the next epoch takes the third branch), and the weight does **not** move
  forward; what happens to it is the only difference between the methods:

  * :class:`RpropPlus`, RPROP as the thesis writes it (§1.4.2): the
    previous update is undone, ``w ← w + sign(g_prev)·Δ_prev``. This is
    "RPROP+" in Igel and Hüsken's naming (weight backtracking);
  * :class:`IRpropPlus`, iRPROP+ (§1.4.3): the previous update is undone
    only if the epoch's error rose, ``E(t) > E(t-1)``;
  * :class:`Sarprop`, SARPROP (§1.4.4): never undone; instead, when the
    step is already small, ``Δ_prev < k2·E(t)²`` (formula 1), the new step
    gets noise, ``Δ ← Δ_prev·η- + k3·E(t)·r·2^(-T·epoch)`` (formula 2, not
    floored at Δmin, as printed), ``r`` uniform in (0, 1) and ``epoch`` the
    number of epochs passed;

- a zero product (the first epoch, or the one after a flip): ``Δ`` is kept
  and ``w ← w - sign(g)·Δ``.

Constants (§1.4.2, "standard values [25]" = Riedmiller and Braun 1993):
``η+ = 1.2``, ``η- = 0.5``, ``Δmin = 1e-6``, ``Δmax = 50``. SARPROP (§1.4.4):
``k2 = 0.1``, ``k3 = 3.0``, ``T`` one of 0.01, 0.015, 0.02. The thesis does
not state the initial step ``Δ0``; we use Riedmiller and Braun's 0.1.
Formula (3), the decaying ``k1 = 0.01`` weight term of the original SARPROP
paper, "does not influence the block classifier" and was left out of the
thesis's program (p. 25), so ``k1`` defaults to 0 here; when set, it is
applied exactly as printed, ``g ← g - k1·w·2^(-T·epoch)``.

``E`` is the training error the closure returns: the trainer returns the RMS
(the thesis's error, §2.1.1) and back-propagates the mean squared error,
which has the same gradient signs.

Compared with :class:`torch.optim.Rprop`: torch implements **iRPROP-**
(Igel and Hüsken): on a sign flip it shrinks the step and zeroes the
gradient, never backtracks, and it clamps every step size into
``[Δmin, Δmax]``. That is exactly our :class:`Sarprop` with the noise
switched off (``k2 = 0`` or ``k3 = 0``), and the tests check the two step by
step. Torch has no weight backtracking (RPROP+, iRPROP+), no error-driven
rule and no annealing noise, so those are written here.

>>> import torch
>>> w = torch.nn.Parameter(torch.tensor([1.0, -1.0], dtype=torch.float64))
>>> opt = IRpropPlus([w], delta0=0.1)
>>> def closure() -> float:
...     opt.zero_grad()
...     loss = (w ** 2).sum()
...     loss.backward()
...     return loss.item()
>>> _ = opt.step(closure)
>>> w.detach().tolist()
[0.9, -0.9]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch.optim import Optimizer

from fuseki.util.errors import InputError

__all__ = [
    "ALGORITHMS",
    "DELTA0",
    "DELTA_MAX",
    "DELTA_MIN",
    "ETA_MINUS",
    "ETA_PLUS",
    "SARPROP_K1",
    "SARPROP_K2",
    "SARPROP_K3",
    "SARPROP_TEMPERATURES",
    "IRpropPlus",
    "RpropPlus",
    "Sarprop",
    "algorithm_label",
    "make_optimizer",
]

#: Step-size growth and shrink factors (§1.4.2, p. 23).
ETA_PLUS = 1.2
ETA_MINUS = 0.5
#: Step-size bounds (§1.4.2, p. 23).
DELTA_MIN = 1e-6
DELTA_MAX = 50.0
#: Initial step size: not in the thesis; Riedmiller and Braun's (1993) standard value.
DELTA0 = 0.1
#: SARPROP constants (§1.4.4, formulas 1-3, pp. 24-25).
SARPROP_K1 = 0.01
SARPROP_K2 = 0.1
SARPROP_K3 = 3.0
#: The three SARPROP temperatures the thesis's program offers (§1.4.4, p. 25).
SARPROP_TEMPERATURES = (0.01, 0.015, 0.02)

#: Algorithm names (the order of the thesis's tables) -> the label the thesis prints.
ALGORITHMS: dict[str, str] = {
    "irprop+": "iRPROP+",
    "rprop": "RPROP",
    "sarprop-0.01": "SARPROP (T=0.010)",
    "sarprop-0.015": "SARPROP (T=0.015)",
    "sarprop-0.02": "SARPROP (T=0.020)",
}

Closure = Callable[[], float | torch.Tensor]


class _SignRprop(Optimizer):
    """Shared state and checks of the three methods; subclasses decide what a sign flip does."""

    #: Whether :meth:`step` needs the epoch's error (iRPROP+, SARPROP).
    needs_error = False

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        *,
        delta0: float = DELTA0,
        eta_plus: float = ETA_PLUS,
        eta_minus: float = ETA_MINUS,
        delta_min: float = DELTA_MIN,
        delta_max: float = DELTA_MAX,
        **extra: Any,
    ) -> None:
        if not 0.0 < eta_minus < 1.0 < eta_plus:
            raise ValueError(f"need 0 < eta_minus < 1 < eta_plus, got {eta_minus} and {eta_plus}")
        if not 0.0 < delta_min <= delta_max:
            raise ValueError(f"need 0 < delta_min <= delta_max, got {delta_min} and {delta_max}")
        if not delta_min <= delta0 <= delta_max:
            raise ValueError(f"the initial step delta0={delta0} must lie in [{delta_min}, {delta_max}]")
        defaults = dict(
            delta0=delta0, eta_plus=eta_plus, eta_minus=eta_minus, delta_min=delta_min, delta_max=delta_max, **extra
        )
        super().__init__(params, defaults)

    def _error(self, closure: Closure | None, error: float | None) -> float | None:
        if closure is not None:
            with torch.enable_grad():
                value = closure()
            error = float(value.detach()) if isinstance(value, torch.Tensor) else value
        if error is not None:
            error = float(error)
            if not math.isfinite(error) or error < 0:
                raise ValueError(f"the error must be a finite number >= 0, got {error}")
        elif self.needs_error:
            raise ValueError(f"{type(self).__name__}.step needs the epoch's error: pass a closure that returns it")
        return error

    @torch.no_grad()
    def step(  # type: ignore[override]
        self, closure: Closure | None = None, *, error: float | None = None
    ) -> float | None:
        """One full-batch epoch: ``closure()`` computes the gradients and returns the error ``E(t)``.

        Without a closure the gradients must already be in ``.grad`` and the
        error (needed by iRPROP+ and SARPROP) is passed as ``error``.
        Returns the error.
        """
        e = self._error(closure, error)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise ValueError("the RPROP family does not support sparse gradients")
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["delta"] = torch.full_like(p, group["delta0"], memory_format=torch.preserve_format)
                    state["prev_grad"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["prev_error"] = math.inf
                self._update(p, p.grad, state, group, e)
                state["step"] += 1
                state["prev_error"] = math.inf if e is None else e
        return e

    def _update(
        self, p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any], e: float | None
    ) -> None:
        """One epoch's change of ``p``'s step sizes and weights (the thesis's pseudocode, vectorised)."""
        delta: torch.Tensor = state["delta"]
        prev: torch.Tensor = state["prev_grad"]
        grad = self._gradient(p, grad, state, group)
        product = grad * prev
        same = product > 0
        flip = product < 0
        old = delta.clone()
        grown = torch.clamp(old * group["eta_plus"], max=group["delta_max"])
        delta.copy_(torch.where(same, grown, old))
        if bool(flip.any()):
            delta.copy_(torch.where(flip, self._shrunk(old, flip, group, e, state), delta))
        forward = torch.where(flip, torch.zeros_like(grad), -torch.sign(grad) * delta)
        back = torch.where(flip, self._backtrack(prev, old, state, e), torch.zeros_like(grad))
        p.add_(forward + back)
        prev.copy_(torch.where(flip, torch.zeros_like(grad), grad))

    def _gradient(
        self, p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any]
    ) -> torch.Tensor:
        """The gradient the sign rule reads (SARPROP may add its k1 term)."""
        return grad

    def _shrunk(
        self, old: torch.Tensor, flip: torch.Tensor, group: dict[str, Any], e: float | None, state: dict[str, Any]
    ) -> torch.Tensor:
        """The new step sizes where the gradient flipped (``flip``); other entries are ignored."""
        return torch.clamp(old * group["eta_minus"], min=group["delta_min"])

    def _backtrack(self, prev: torch.Tensor, old: torch.Tensor, state: dict[str, Any], e: float | None) -> torch.Tensor:
        """The weight change on a sign flip: undo the last step, ``+sign(g_prev)·Δ_prev`` (RPROP+)."""
        return torch.sign(prev) * old


class RpropPlus(_SignRprop):
    """RPROP as in the thesis's pseudocode (§1.4.2): on a sign flip, undo the previous weight update.

    This is Riedmiller and Braun's original RPROP, "RPROP+" in Igel and
    Hüsken's naming. The closure's return value is not used (but returned).
    """


class IRpropPlus(_SignRprop):
    """iRPROP+ (§1.4.3): undo the previous update on a sign flip only if the error rose, ``E(t) > E(t-1)``."""

    needs_error = True

    def _backtrack(self, prev: torch.Tensor, old: torch.Tensor, state: dict[str, Any], e: float | None) -> torch.Tensor:
        assert e is not None
        if e > state["prev_error"]:
            return torch.sign(prev) * old
        return torch.zeros_like(old)


class Sarprop(_SignRprop):
    """SARPROP (§1.4.4): no backtracking; small steps get decaying noise on a sign flip.

    ``temperature`` is ``T``; ``seed`` seeds the generator of the noise
    ``r`` (its state travels in :meth:`state_dict`, so a resumed run draws
    the same numbers). ``k1`` (formula 3) defaults to 0, as in the thesis's
    program.

    The noise scales with the error: at an RMS near 0.5 (the start of
    training on balanced labels) a small flipped step can jump to
    ``k3·E = 1.5``, and learning stalls until the error falls; the thesis's
    errors were near 0.07, where it reaches at most ~0.2.
    """

    needs_error = True

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        *,
        temperature: float = 0.01,
        k1: float = 0.0,
        k2: float = SARPROP_K2,
        k3: float = SARPROP_K3,
        seed: int = 0,
        delta0: float = DELTA0,
        eta_plus: float = ETA_PLUS,
        eta_minus: float = ETA_MINUS,
        delta_min: float = DELTA_MIN,
        delta_max: float = DELTA_MAX,
    ) -> None:
        if temperature < 0 or k1 < 0 or k2 < 0 or k3 < 0:
            raise ValueError("SARPROP's temperature, k1, k2 and k3 must be >= 0")
        super().__init__(
            params,
            delta0=delta0,
            eta_plus=eta_plus,
            eta_minus=eta_minus,
            delta_min=delta_min,
            delta_max=delta_max,
            temperature=temperature,
            k1=k1,
            k2=k2,
            k3=k3,
        )
        self.generator = torch.Generator(device="cpu")
        self.generator.manual_seed(int(seed))

    @staticmethod
    def annealing(group: dict[str, Any], epoch: int) -> float:
        """``2^(-T·epoch)``: the factor that fades the noise (and the k1 term) out."""
        return float(2.0 ** (-group["temperature"] * epoch))

    def _gradient(
        self, p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any]
    ) -> torch.Tensor:
        if group["k1"] == 0:
            return grad
        return grad - group["k1"] * p * self.annealing(group, state["step"])

    def _shrunk(
        self, old: torch.Tensor, flip: torch.Tensor, group: dict[str, Any], e: float | None, state: dict[str, Any]
    ) -> torch.Tensor:
        assert e is not None
        plain = torch.clamp(old * group["eta_minus"], min=group["delta_min"])
        small = old < group["k2"] * e * e
        # Noise is drawn (for the whole tensor, to keep the stream simple) only when some flipped step is small.
        if not bool((small & flip).any()):
            return plain
        r = torch.rand(old.shape, generator=self.generator, dtype=old.dtype).to(old.device)
        noisy = old * group["eta_minus"] + group["k3"] * e * r * self.annealing(group, state["step"])
        return torch.where(small, noisy, plain)

    def _backtrack(self, prev: torch.Tensor, old: torch.Tensor, state: dict[str, Any], e: float | None) -> torch.Tensor:
        return torch.zeros_like(old)

    def state_dict(self) -> dict[str, Any]:
        """The optimiser state plus the noise generator's state."""
        out = super().state_dict()
        out["generator"] = self.generator.get_state()
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`, including the noise generator."""
        state_dict = dict(state_dict)
        gen = state_dict.pop("generator", None)
        super().load_state_dict(state_dict)
        if gen is not None:
            self.generator.set_state(gen)


def algorithm_label(name: str) -> str:
    """The thesis's printed name of an algorithm (``"sarprop-0.01"`` -> ``"SARPROP (T=0.010)"``)."""
    if name not in ALGORITHMS:
        raise InputError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def make_optimizer(
    name: str, params: Iterable[torch.Tensor], *, seed: int = 0, delta0: float = DELTA0
) -> RpropPlus | IRpropPlus | Sarprop:
    """The optimiser for an algorithm name of :data:`ALGORITHMS`, with the thesis's constants.

    >>> import torch
    >>> type(make_optimizer("sarprop-0.015", [torch.nn.Parameter(torch.zeros(2))])).__name__
    'Sarprop'
    """
    algorithm_label(name)
    if name == "rprop":
        return RpropPlus(params, delta0=delta0)
    if name == "irprop+":
        return IRpropPlus(params, delta0=delta0)
    return Sarprop(params, temperature=float(name.split("-", 1)[1]), seed=seed, delta0=delta0)
